import type { JsMsg } from "@nats-io/jetstream";
import { Batcher, type ConsumerSpec } from "@mailroom/kit";
import { emailsRepo, type Claim } from "../db/emails-repo.js";
import { attachmentsRepo } from "../db/attachments-repo.js";
import type { DeliveryLane } from "../domain/lanes.js";
import { isPermanentFailure, outgoingMessage } from "../domain/compose.js";
import { providerMessageId } from "../domain/feedback.js";
import type { Ctx } from "../usecases/context.js";
import { failEmail } from "../usecases/fail-email.js";
import type { SendJob } from "../usecases/queue-email.js";
import { SentRecorder } from "./record-sent.js";
import type { Relay } from "./transport.js";
import type { ProjectThrottle } from "./throttle.js";

/** The lease outlives a renewal interval a few times over, so only a dead worker loses it. */
const LEASE_MS = 15_000;
const RENEW_MS = 5_000;

export interface DeliveryOptions {
  lane: DeliveryLane;
  concurrency: number;
  throttle: ProjectThrottle;
  /** The relay's 250 also counts as delivery (no DSNs come back). */
  deliveredOn250: boolean;
}

/** The lease is held by a live worker: try again later, without touching the record. */
class LeaseHeld extends Error {}

/**
 * Delivery workers of one lane (domain/lanes.ts): the durable pull consumer `sending-delivery` on
 * SEND_JOBS (bulk, and every job queued before the lanes existed) or `sending-transactional` on
 * TRANSACTIONAL_JOBS, each with its own handler slots. The record's state guards the SMTP call: only
 * the holder of a QUEUED record's lease sends; a SENT record is acked unsent.
 */
export function deliveryConsumer(ctx: Ctx, relay: Relay, opts: DeliveryOptions): ConsumerSpec {
  // Concurrent jobs share their database round trips: claims (with their keys) and sent records each go
  // in one statement per batch (group commit), which is most of what a delivery costs. Per lane, so a
  // transactional claim never waits for a statement full of a campaign's.
  const batches: Batches = {
    claims: new Batcher((ids: string[]) => emailsRepo.claimMany(ctx.sql, ids, LEASE_MS), { maxBatch: 256, maxInFlight: 2, lingerMs: 5 }),
    sent: new SentRecorder(ctx),
  };
  const bulk = opts.lane === "bulk";
  return {
    stream: bulk ? ctx.names.streams.sendJobs.name : ctx.names.streams.transactionalJobs.name,
    durable: bulk ? ctx.names.consumers.sendingDelivery : ctx.names.consumers.sendingTransactional,
    concurrency: opts.concurrency,
    maxDeliver: 8,
    ackWaitMs: LEASE_MS,
    // 1 s, 4 s, 16 s, 64 s, then every 5 minutes: a relay's 4xx usually clears within minutes.
    retryDelayMs: (attempt) => Math.min(300_000, 1000 * 4 ** (attempt - 1)),
    handle: (msg) => deliver(ctx, relay, opts, batches, msg),
    async onGiveUp(msg, err) {
      const job = msg.json<SendJob>();
      await failEmail(ctx, job.emailId, `gave up: ${String((err as Error)?.message ?? err)}`, true);
    },
  };
}

interface Batches {
  claims: Batcher<string, Claim>;
  sent: SentRecorder;
}

async function deliver(ctx: Ctx, relay: Relay, opts: DeliveryOptions, batches: Batches, msg: JsMsg): Promise<void> {
  const job = msg.json<SendJob>();
  const claim = await batches.claims.add(job.emailId);
  if (claim.kind === "missing" || claim.kind === "done") return;
  if (claim.kind === "leased") throw new LeaseHeld(`email ${job.emailId} is being sent by another worker`);
  const { email, key } = claim;

  // Per delivery, and not a kit Periodic on purpose: `working()` must reach NATS on time even while a
  // lease renewal is slow, and a Periodic would wait for the renewal before its next run.
  const keepAlive = setInterval(() => {
    msg.working();
    emailsRepo.renewLease(ctx.sql, email.id, LEASE_MS).catch(() => undefined);
  }, RENEW_MS);
  try {
    // Mailroom's own mail (usecases/system-email.ts) is the one kind sent without a project's domain
    if (!key && email.from !== ctx.systemFrom) {
      await failEmail(ctx, email.id, "the sender domain is no longer verified");
      return;
    }
    const files = await attachmentsRepo.get(ctx.sql, email.attachmentIds);
    // List-Unsubscribe is for marketing mail only; its signed link is made only then.
    const unsubscribeUrl = email.marketing ? ctx.links.url("u", email.id, email.projectId) : "";
    const message = await outgoingMessage(email, files, key, { envelopeSender: ctx.verp.address(email.id), unsubscribeUrl });
    await opts.throttle.wait(email.projectId, opts.lane, () => msg.working());
    let response: string;
    try {
      ({ response } = await relay.send(message, opts.lane));
    } catch (err) {
      const reason = String((err as Error)?.message ?? err);
      if (isPermanentFailure(err)) {
        await failEmail(ctx, email.id, reason);
        return;
      }
      await emailsRepo.release(ctx.sql, email.id, reason);
      throw err;
    }
    await batches.sent.recordOnce({ email, at: new Date(), delivered: opts.deliveredOn250, providerMessageId: providerMessageId(response) });
    ctx.metrics.emails.inc({ project: email.projectId, status: "sent" });
  } finally {
    clearInterval(keepAlive);
  }
}
