import type { JsMsg } from "@nats-io/jetstream";
import { enqueue, eventMessage, isConnectionError, type ConsumerSpec } from "@mailroom/kit";
import type { DeliveryRecord } from "../db/emails-repo.js";
import { composeMessage, isPermanentFailure } from "../domain/compose.js";
import { domainOf } from "../domain/domains.js";
import { emailEvent } from "../domain/events.js";
import { providerMessageId } from "../domain/feedback.js";
import type { Ctx } from "../usecases/context.js";
import { failEmail } from "../usecases/fail-email.js";
import type { SendJob } from "../usecases/queue-email.js";
import type { Relay } from "./transport.js";
import type { ProjectThrottle } from "./throttle.js";

/** The lease outlives a renewal interval a few times over, so only a dead worker loses it. */
const LEASE_MS = 15_000;
const RENEW_MS = 5_000;

export interface DeliveryOptions {
  concurrency: number;
  throttle: ProjectThrottle;
  /** The relay's 250 also counts as delivery (no DSNs come back). */
  deliveredOn250: boolean;
}

/** The lease is held by a live worker: try again later, without touching the record. */
class LeaseHeld extends Error {}

/**
 * Delivery workers: durable pull consumer `sending-delivery` on SEND_JOBS. The record's state guards
 * the SMTP call: only the holder of a QUEUED record's lease sends; a SENT record is acked unsent.
 */
export function deliveryConsumer(ctx: Ctx, relay: Relay, opts: DeliveryOptions): ConsumerSpec {
  return {
    stream: ctx.names.streams.sendJobs.name,
    durable: ctx.names.consumers.sendingDelivery,
    concurrency: opts.concurrency,
    maxDeliver: 8,
    ackWaitMs: LEASE_MS,
    // 1 s, 4 s, 16 s, 64 s, then every 5 minutes: a relay's 4xx usually clears within minutes.
    retryDelayMs: (attempt) => Math.min(300_000, 1000 * 4 ** (attempt - 1)),
    handle: (msg) => deliver(ctx, relay, opts, msg),
    async onGiveUp(msg, err) {
      const job = msg.json<SendJob>();
      await failEmail(ctx, job.emailId, `gave up: ${String((err as Error)?.message ?? err)}`, true);
    },
  };
}

async function deliver(ctx: Ctx, relay: Relay, opts: DeliveryOptions, msg: JsMsg): Promise<void> {
  const job = msg.json<SendJob>();
  const claim = await ctx.emails.claim(job.emailId, LEASE_MS);
  if (claim.kind === "missing" || claim.kind === "done") return;
  if (claim.kind === "leased") throw new LeaseHeld(`email ${job.emailId} is being sent by another worker`);
  const email = claim.email;

  const keepAlive = setInterval(() => {
    msg.working();
    ctx.emails.renewLease(email.id, LEASE_MS).catch(() => undefined);
  }, RENEW_MS);
  try {
    const key = await ctx.domains.signingKey(email.projectId, domainOf(email.from));
    if (!key) {
      await failEmail(ctx, email.id, "the sender domain is no longer verified");
      return;
    }
    const files = await ctx.emails.attachments(email.attachmentIds);
    const { unsubscribeUrl } = ctx.links.subscriptionUrls(email.id, email.projectId);
    const message = composeMessage(email, files, key, { returnPathDomain: ctx.returnPathDomain, unsubscribeUrl });
    await opts.throttle.wait(email.projectId, () => msg.working());
    let response: string;
    try {
      ({ response } = await relay.send(message));
    } catch (err) {
      const reason = String((err as Error)?.message ?? err);
      if (isPermanentFailure(err)) {
        await failEmail(ctx, email.id, reason);
        return;
      }
      await ctx.emails.release(email.id, reason);
      throw err;
    }
    await recordSentOnce(ctx, email, opts.deliveredOn250, providerMessageId(response));
    ctx.metrics.emails.inc({ project: email.projectId, status: "sent" });
  } finally {
    clearInterval(keepAlive);
  }
}

/** How long a worker keeps trying to record a message the relay already took. */
const RECORD_RETRY_MS = 60_000;

/**
 * The relay has the message: recording it must not fail over a database blip, or the job is retried
 * and the email goes out twice (packages/faults/test/postgres-restart.test.ts saw 12 copies after a
 * 4 s restart). So retry while PostgreSQL is unreachable; the keep-alive keeps the job ours meanwhile
 * and nobody can take the lease while the database is down. markSent only moves a QUEUED record, so
 * a retry after a commit whose answer was lost changes nothing.
 */
async function recordSentOnce(ctx: Ctx, email: DeliveryRecord, delivered: boolean, providerMessageId: string | null): Promise<void> {
  const deadline = Date.now() + RECORD_RETRY_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await recordSent(ctx, email, delivered, providerMessageId);
    } catch (err) {
      if (!isConnectionError(err) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** SENT (and DELIVERED without DSNs) with its events, in one transaction through the outbox. */
async function recordSent(ctx: Ctx, email: DeliveryRecord, delivered: boolean, providerMessageId: string | null): Promise<void> {
  const at = new Date();
  const events = [emailEvent(email, "email.sent", { sentAt: at.toISOString() }, at)];
  if (delivered) events.push(emailEvent(email, "email.delivery", { deliveredAt: at.toISOString() }, at));
  await ctx.sql.begin(async (tx) => {
    if (await ctx.emails.markSent(tx as never, email.id, at, delivered, providerMessageId)) {
      await enqueue(tx, events.map((e) => eventMessage(ctx.names, e)));
    }
  });
  ctx.outbox.kick();
}
