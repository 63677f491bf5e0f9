import type { JsMsg } from "@nats-io/jetstream";
import PQueue from "p-queue";
import { Batcher, type ConsumerSpec, type Lease, LeaseSet, type Logger, RetryLater, type Sql } from "@mailroom/kit";
import { deliveriesRepo, type Claim } from "../db/deliveries-repo.js";
import { attachmentsRepo } from "../db/attachments-repo.js";
import type { DeliveryLane } from "../domain/lanes.js";
import { isPermanentFailure, outgoingMessage } from "../domain/compose.js";
import { afterDeferral, deferralsWithin, isDeferral } from "../domain/deferrals.js";
import { providerMessageId } from "../domain/feedback.js";
import type { Ctx } from "../usecases/context.js";
import { failEmail } from "../usecases/fail-email.js";
import { jobEmailIds } from "../usecases/queue-email.js";
import { SentRecorder, type SentRecord } from "./record-sent.js";
import type { Relay } from "./transport.js";
import type { ProjectThrottle } from "./throttle.js";
import type { ProviderGate } from "./provider-gate.js";
import type { ProviderDirectory } from "./providers.js";
import type { WarmupCaps } from "./warmup.js";
import { ownProvider, recipientDomain, type Provider } from "../domain/providers.js";

/**
 * Bulk jobs held at once: each carries up to a hundred emails, so three keep every slot busy while
 * one finishes its last emails, and a replica never hoards what another replica could send.
 */
const BULK_JOBS_IN_FLIGHT = 3;

/**
 * How long a sent record waits for others to share its statement (SentRecorder). A campaign's rate
 * makes batches of a few dozen in 50 ms (at 10 ms they were five or six, and a statement and a
 * commit per five emails was the largest part of PostgreSQL's work per campaign email); a
 * transactional email's delivered event should not wait that long. The window is also how long a
 * crash can leave a relayed email unrecorded (sent again by the retry), as the relay call itself does.
 */
const BULK_RECORD_LINGER_MS = 50;
const TRANSACTIONAL_RECORD_LINGER_MS = 10;

/**
 * One replica's delivery leases, shared by both lanes: every email its workers are sending, under one
 * token, renewed by one heartbeat in one statement every third of `leaseMs` (DELIVERY_LEASE_MS). The
 * lease outlives a renewal interval a few times over, so only a dead or stalled replica loses it.
 */
export function deliveryLeases(sql: Sql, leaseMs: number, log: Logger): LeaseSet {
  return new LeaseSet(sql, deliveriesRepo, { name: "delivery", ms: leaseMs, log });
}

export interface DeliveryOptions {
  lane: DeliveryLane;
  /** Emails in flight at once (the lane's slots). */
  concurrency: number;
  throttle: ProjectThrottle;
  /** Each recipient's mailbox provider (MX, cached). */
  providers: ProviderDirectory;
  /** Per-provider connections and rates (DELIVERY_LIMITS), shared by both lanes of the replica. */
  gate: ProviderGate;
  /** Daily caps of sender domains warming up. */
  warmup: WarmupCaps;
  /** The relay's 250 also counts as delivery (no DSNs come back). */
  deliveredOn250: boolean;
  /** The replica's delivery leases (`deliveryLeases`). */
  leases: LeaseSet;
  /** DELIVERY_MAX_AGE: how long an email the relay keeps deferring is tried. */
  maxAgeMs: number;
  /** DELIVERY_TIME_SCALE (tests only). */
  timeScale: number;
  log: Pick<Logger, "warn">;
}

/**
 * What became of one email of a job: done (sent, failed, gone), to be tried again soon (a lease
 * race, a relay that could not be reached), or deferred by the relay's 4xx until its schedule says.
 */
type Outcome = "done" | "again" | { deferredMs: number };

/** Retries of a job besides its emails' deferrals: lease races, a relay that could not be reached. */
const OTHER_RETRIES = 8;

/** The job's retries when none of its emails was deferred: 1 s, 4 s, 16 s, 64 s, then every 5 minutes. */
const soonAfter = (attempt: number) => Math.min(300_000, 1000 * 4 ** (attempt - 1));

/**
 * Delivery workers of one lane (domain/lanes.ts): the durable pull consumer `sending-delivery` on
 * SEND_JOBS (bulk, and every job queued before the lanes existed) or `sending-transactional` on
 * TRANSACTIONAL_JOBS. A job names the emails of one queueing write (queue-email.ts); they go
 * through the lane's slots one by one, and the job is acked once each is sent, failed for good, or
 * found done. When some are to be tried again (a relay's 4xx, another worker's live lease), the job
 * is retried after its delay, and the retry finds the others done at its claim. The record's state
 * guards the SMTP call: only the holder of a QUEUED record's lease sends.
 */
export function deliveryConsumer(ctx: Ctx, relay: Relay, opts: DeliveryOptions): ConsumerSpec {
  // Concurrent deliveries share their database round trips: claims (with their keys) and sent records
  // each go in one statement per batch (group commit), which is most of what a delivery costs. Per
  // lane, so a transactional claim never waits for a statement full of a campaign's.
  const bulk = opts.lane === "bulk";
  const lane: Lane = {
    ctx,
    relay,
    opts,
    claims: new Batcher((ids: string[]) => claim(ctx, opts.leases, ids), { maxBatch: 256, maxInFlight: 2, lingerMs: 5 }),
    sent: new SentRecorder(ctx, bulk ? BULK_RECORD_LINGER_MS : TRANSACTIONAL_RECORD_LINGER_MS),
    slots: new PQueue({ concurrency: opts.concurrency }),
  };
  return {
    stream: bulk ? ctx.names.streams.sendJobs.name : ctx.names.streams.transactionalJobs.name,
    durable: bulk ? ctx.names.consumers.sendingDelivery : ctx.names.consumers.sendingTransactional,
    // transactional jobs are mostly a single email: as many held as there are slots
    concurrency: bulk ? BULK_JOBS_IN_FLIGHT : opts.concurrency,
    // an email's deferrals until its maximum age, and the other retries beside them
    maxDeliver: deferralsWithin(opts.maxAgeMs, opts.timeScale) + OTHER_RETRIES,
    ackWaitMs: opts.leases.opts.ms,
    retryDelayMs: soonAfter,
    handle: (msg) => deliverJob(lane, msg),
    async onGiveUp(msg, err) {
      for (const id of jobEmailIds(msg)) await failEmail(ctx, id, `gave up: ${String((err as Error)?.message ?? err)}`, null);
    },
  };
}

interface Lane {
  ctx: Ctx;
  relay: Relay;
  opts: DeliveryOptions;
  claims: Batcher<string, Taken>;
  sent: SentRecorder;
  slots: PQueue;
}

/** A claim as a lane has it: a claimed email comes with its lease, held in the replica's LeaseSet. */
type Taken = Exclude<Claim, { kind: "claimed" }> | (Extract<Claim, { kind: "claimed" }> & { lease: Lease });

/** Claims under the set's token; the claim's time, taken before the statement, starts each lease's clock. */
async function claim(ctx: Ctx, leases: LeaseSet, ids: string[]): Promise<Taken[]> {
  const at = performance.now();
  const claims = await deliveriesRepo.claimMany(ctx.sql, ids, leases.token, leases.opts.ms);
  return claims.map((c) => (c.kind === "claimed" ? { ...c, lease: leases.hold(c.email.id, at) } : c));
}

async function deliverJob(lane: Lane, msg: JsMsg): Promise<void> {
  const ids = jobEmailIds(msg);
  // Per job, and not a kit Periodic on purpose: `working()` must reach NATS on time whatever else is
  // slow. The leases of the job's emails are the replica's LeaseSet's, renewed by its own heartbeat.
  const keepAlive = setInterval(() => msg.working(), lane.opts.leases.opts.ms / 3);
  try {
    // The whole job is claimed at once, in one statement (a job is one replica's already): claimed
    // as slots freed up, a campaign's emails took a claim statement per few emails. Its emails wait
    // for a slot under leases the set's heartbeat renews.
    const claims = ids.map((id) => lane.claims.add(id));
    for (const c of claims) c.catch(() => {}); // awaited by deliverOne; handled here until then
    // The providers of the job's recipients, looked up together once its claims are in: one lookup
    // per new domain a job, none for a domain seen before (delivery/providers.ts).
    const providers = Promise.allSettled(claims).then((cs) =>
      lane.opts.providers.of(cs.flatMap((c) => (c.status === "fulfilled" && c.value.kind === "claimed" ? [c.value.email.to] : []))).catch(() => new Map<string, Provider>()),
    );
    // every email of the job ends its attempt before the job is acked or goes back
    const outcomes = await Promise.allSettled(claims.map((c) => deliverOne(lane, c, providers, () => msg.working())));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failed) throw failed.reason;
    const left = outcomes.flatMap((o) => (o.status === "fulfilled" && o.value !== "done" ? [o.value] : []));
    if (left.length === 0) return;
    // The job comes back when its first email is due: soon when one only has to be tried again,
    // else when the earliest deferral ends (emails not due yet then claim as "deferred" again).
    const soon = left.includes("again");
    const deferred = left.flatMap((o) => (typeof o === "object" ? [o.deferredMs] : []));
    const why = `${left.length} of the job's ${ids.length} email(s) to be tried again`;
    if (soon) throw new Error(why);
    throw new RetryLater(`${why} (deferred by the relay)`, Math.min(...deferred));
  } finally {
    clearInterval(keepAlive);
  }
}

/**
 * One email of a job, under its lease: every statement after the claim checks the lease's token, so a
 * worker whose lease was taken over commits nothing. A slot is held from composing to the relay's
 * answer, not while the record commits: sent records wait for a batch (SentRecorder), and a slot
 * held meanwhile would be an SMTP connection idle.
 */
async function deliverOne(lane: Lane, claiming: Promise<Taken>, providers: Promise<Map<string, Provider>>, keepWorking: () => void): Promise<Outcome> {
  const { ctx, opts } = lane;
  const claimed = await claiming;
  if (claimed.kind === "missing" || claimed.kind === "done") return "done";
  // another worker's lease is live: it is sending this one, or died and the lease will run out
  if (claimed.kind === "leased") return "again";
  if (claimed.kind === "deferred") return { deferredMs: claimed.inMs };
  const { email, lease } = claimed;
  try {
    const provider = (await providers).get(email.to.toLowerCase()) ?? ownProvider(recipientDomain(email.to));
    // over its sender domain's warm-up cap for the provider: held until the next day, no attempt spent
    if (claimed.warmup && claimed.key) {
      const waitMs = await opts.warmup.admit(email.projectId, claimed.key.domain, provider);
      if (waitMs !== null) {
        opts.gate.held(provider, "warmup");
        await lease.end();
        await deliveriesRepo.hold(ctx.sql, email.id, lease.token, waitMs, provider);
        return { deferredMs: waitMs };
      }
    }
    // the provider's turn before a slot of the lane: its waiters never hold slots other providers could use
    await opts.gate.acquire(provider, opts.lane, email);
    let sent: Outcome | SentRecord;
    try {
      sent = (await lane.slots.add(() => relayOne(lane, claimed, provider, keepWorking))) as Outcome | SentRecord;
    } finally {
      opts.gate.release(provider);
    }
    if (typeof sent === "string" || "deferredMs" in sent) return sent;
    // not recorded: the lease was lost meanwhile (its successor records the email) or an earlier try
    // of the statement committed; either way the retry finds the email done
    if (!(await lane.sent.recordOnce(sent))) return "again";
    ctx.metrics.emails.inc({ project: email.projectId, status: "sent" });
    return "done";
  } finally {
    await lease.end();
  }
}

/**
 * Composes and relays one claimed email: the relay took it (its record to write), or what became of
 * it otherwise. The lease is checked once more just before the relay call; whatever finds it gone
 * answers "again": the job's retry finds the email done by the replica that took it over, or takes
 * it again if that one failed.
 */
async function relayOne(lane: Lane, claimed: Extract<Taken, { kind: "claimed" }>, provider: Provider, keepWorking: () => void): Promise<Outcome | SentRecord> {
  const { ctx, relay, opts } = lane;
  const { email, key, lease } = claimed;
  // Mailroom's own mail (usecases/system-email.ts) is the one kind sent without a project's domain
  if (!key && email.from !== ctx.systemFrom) {
    return (await failEmail(ctx, email.id, "the sender domain is no longer verified", lease.token)) ? "done" : "again";
  }
  const files = await attachmentsRepo.get(ctx.sql, email.attachmentIds);
  // List-Unsubscribe is for marketing mail only; its signed link is made only then.
  const unsubscribeUrl = email.marketing ? ctx.links.url("u", email.id, email.projectId) : "";
  const message = await outgoingMessage(email, files, key, { envelopeSender: ctx.verp.address(email.id), unsubscribeUrl });
  await opts.throttle.wait(email.projectId, opts.lane, keepWorking);
  // The last moment a lost lease can stop the send: past it the relay has the message. Free while
  // the heartbeat keeps the lease renewed; a worker that stalled renews first and learns here that
  // another replica took the email over.
  if (!(await lease.held())) {
    opts.log.warn(
      { emailId: email.id, lost: lease.lost },
      lease.lost ? "delivery lease lost before the relay call; not sent here: the replica that took it over sends it" : "delivery lease not confirmed (database away?); not sent, tried again later",
    );
    return "again";
  }
  let response: string;
  try {
    ({ response } = await relay.send(message, opts.lane));
  } catch (err) {
    const reason = String((err as Error)?.message ?? err);
    if (isPermanentFailure(err)) return (await failEmail(ctx, email.id, reason, lease.token)) ? "done" : "again";
    if (isDeferral(err)) {
      void opts.gate.answered(provider, true).catch(() => {});
      const next = afterDeferral(email.attempts, email.queuedAt, new Date(), opts.maxAgeMs, opts.timeScale);
      if ("expired" in next) {
        const why = `expired: deferred by the relay for longer than DELIVERY_MAX_AGE; last answer: ${reason}`;
        return (await failEmail(ctx, email.id, why, lease.token, { diagnostic: reason })) ? "done" : "again";
      }
      await lease.end();
      await deliveriesRepo.defer(ctx.sql, email.id, lease.token, reason, next.retryInMs);
      return { deferredMs: next.retryInMs };
    }
    await lease.end();
    await deliveriesRepo.release(ctx.sql, email.id, lease.token, reason);
    return "again";
  }
  void opts.gate.answered(provider, false);
  return { email, token: lease.token, at: new Date(), delivered: opts.deliveredOn250, providerMessageId: providerMessageId(response) };
}
