import { setTimeout as sleep } from "node:timers/promises";
import pMap from "p-map";
import { AppError, type EnqueueBatchResult, sendingRpc } from "@mailroom/contracts";
import { type Clock, Lease, LeaseLost, type LeaseOptions, type Logger, Periodic, type RpcClient, type Sql } from "@mailroom/kit";
import { abRepo } from "../db/ab-repo.js";
import { campaignsRepo, type CampaignRow } from "../db/campaigns-repo.js";
import { fanoutRepo, type PendingRow } from "../db/fanout-repo.js";
import { recipientDueAt } from "../domain/campaign.js";
import { isPermanentEnqueueError, recipientBatch, refusesEveryRecipient, sendingAway, type Recipient } from "../domain/emails.js";
import { RateMeter, sendWindow, type WindowSettings } from "../domain/window.js";
import type { AudienceSource } from "./audience.js";

export interface FanoutOptions {
  /** Counts recipients handed to sending (`enqueued`) or refused by it (`refused`). */
  onProgress?: (status: "enqueued" | "refused", count: number) => void;
  pageSize: number;
  /** Recipients per sending.enqueueBatch call. */
  batchSize: number;
  /** sending.enqueueBatch calls in flight. */
  concurrency: number;
  maxFanouts: number;
  leaseMs: number;
  /** The share of the bulk delivery queue each campaign may hold (domain/window.ts). */
  window: WindowSettings;
  /** How long one minute of an A/B test's wait lasts (one minute, except in tests). */
  abMinuteMs: number;
  /**
   * Calls in a row that moved no recipient on and failed for a reason other than sending being
   * away (see `sendingAway`) before the recipients they carried are counted failed.
   */
  maxEnqueueAttempts: number;
  /** The project's time, in which local-time recipients fall due (a test may set it; kit clock.ts). */
  clock: Clock;
}

/** What one round of enqueue calls did: recipients taken, refused for good, or to try again. */
interface Outcome {
  queued: string[];
  failed: string[];
  retry: string[];
  error?: unknown;
}

/** How often a fan-out whose window is full looks again. */
const CREDIT_POLL_MS = 200;

/**
 * Pending rows as enqueue batches of one content each: a sampled recipient gets its variant, the
 * rest the winner (`restVariant`, null for a plain campaign: the campaign's own content).
 */
function batchesOf(rows: PendingRow[], size: number, restVariant: number | null): Array<{ variant: number | null; recipients: Recipient[] }> {
  const byVariant = new Map<number | null, Recipient[]>();
  for (const r of rows) {
    const variant = r.variant ?? restVariant;
    const list = byVariant.get(variant) ?? [];
    list.push({ contactId: r.contact_id, email: r.email, data: r.data });
    byVariant.set(variant, list);
  }
  const batches: Array<{ variant: number | null; recipients: Recipient[] }> = [];
  for (const [variant, recipients] of byVariant) {
    for (let i = 0; i < recipients.length; i += size) batches.push({ variant, recipients: recipients.slice(i, i + size) });
  }
  return batches;
}

class Stopping extends Error {}

/**
 * Turns SENDING campaigns into delivery jobs. Per campaign, one replica at a time (a lease) reads the
 * audience in keyset pages, parks each page in campaign_pending together with the checkpoint, then
 * hands every pending recipient to sending.enqueue (idempotent by campaign + contact) and removes it.
 * A crash anywhere resumes from the committed checkpoint and pending rows: no recipient is lost,
 * none is enqueued twice, and no more than one page is ever held in memory.
 *
 * Recipients are handed over only while the campaign's window has room (domain/window.ts): queued
 * and not yet ended, a campaign holds its share of the bulk lane and no more, so campaigns running
 * together interleave instead of the later ones waiting for the whole of the earlier ones.
 */
export class Fanout {
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  /** Also polls, so campaigns started by the scheduler elsewhere or left by a dead replica are found. */
  private readonly claims: Periodic;
  private readonly lease: LeaseOptions;

  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly audience: AudienceSource,
    private readonly log: Logger,
    private readonly opts: FanoutOptions,
  ) {
    const everyMs = Math.min(1000, opts.leaseMs / 3);
    this.lease = { name: "fan-out of campaign", ms: opts.leaseMs, log };
    this.claims = new Periodic({ name: "fan-out claim", everyMs, runAtStart: true, log, run: () => this.claimAll() });
  }

  start(): void {
    this.claims.start();
  }

  /** Looks for work now (a campaign has just become SENDING). */
  kick(): void {
    void this.claims.kick();
  }

  private async claimAll(): Promise<void> {
    while (!this.abort.signal.aborted && this.running.size < this.opts.maxFanouts) {
      const claimed = await Lease.claim(this.sql, fanoutRepo, this.lease);
      if (!claimed) return;
      const { lease, row: campaign } = claimed;
      const run = this.run(campaign, lease).finally(() => this.running.delete(campaign.id));
      this.running.set(campaign.id, run);
    }
  }

  /**
   * One campaign's fan-out while `lease` holds it. Another replica takes a campaign over once the
   * lease expires unrenewed (this one died or stalled); then this run stops at its next check, and
   * its writes, which check the lease's token, change nothing meanwhile.
   */
  private async run(c: CampaignRow, lease: Lease): Promise<void> {
    this.log.info({ campaignId: c.id, resumeAfter: c.last_contact_id }, "fan-out started");
    try {
      await this.fanOut(c, lease, new RateMeter(c.send_rate));
      this.log.info({ campaignId: c.id }, "fan-out complete");
    } catch (err) {
      if (err instanceof LeaseLost) this.log.warn({ campaignId: c.id }, "fan-out lease lost; another replica continues");
      else if (!(err instanceof Stopping)) this.log.error({ err, campaignId: c.id }, "fan-out stopped");
    } finally {
      // stopping: given back (after a renewal in flight), so another replica resumes at once
      if (this.abort.signal.aborted) await lease.release().catch(() => undefined);
      else await lease.end();
    }
  }

  private check(lease: Lease): void {
    lease.check();
    if (this.abort.signal.aborted) throw new Stopping();
  }

  private async fanOut(c: CampaignRow, lease: Lease, meter: RateMeter): Promise<void> {
    let afterId = c.last_contact_id;
    let audienceDone = c.audience_done;
    let backoff = 0;
    const attempts = { fruitless: 0 };
    for (;;) {
      this.check(lease);
      try {
        await this.drain(c, lease, meter, attempts);
        if (audienceDone) {
          if (await this.abTestStep(c, lease)) continue;
          if (c.winner_due_at && c.winner_variant === null) return;
          if (await fanoutRepo.finish(this.sql, c.id, lease.token)) await campaignsRepo.completeFinished(this.sql, [c.id]);
          else if (c.deliver_at) {
            // what is left waits for its local time; the scheduler lets the fan-out go on then
            const until = await fanoutRepo.hold(this.sql, c.id, lease.token);
            if (until) this.log.info({ campaignId: c.id, holdUntil: until }, "recipients wait for their local time");
          }
          return;
        }
        const page = await this.readPage(c, afterId);
        const now = this.opts.clock.now(c.project_id);
        const dueAt = page.contacts.map((p) => recipientDueAt(c.deliver_at, p.data, now));
        if (!(await fanoutRepo.addPage(this.sql, c.id, lease.token, page.contacts, page.ended, dueAt))) throw lease.lose();
        afterId = page.contacts.at(-1)?.id ?? afterId;
        audienceDone = page.ended;
        backoff = 0;
      } catch (err) {
        if (err instanceof LeaseLost || err instanceof Stopping) throw err;
        backoff = Math.min(30_000, Math.max(500, backoff * 2));
        this.log.warn({ err: String(err), campaignId: c.id, retryInMs: backoff }, "fan-out step failed; retrying");
        await sleep(backoff, undefined, { signal: this.abort.signal }).catch(() => undefined);
      }
    }
  }

  /**
   * An A/B test, once the whole audience is in campaign_pending: draws the sample (then the loop
   * hands it over: true), and once the sample is handed over starts the wait and lets the campaign
   * go (the scheduler picks the winner at the deadline, and a fan-out then sends it to the rest).
   * An empty audience has no sample and no wait. `c` is updated as the steps are recorded.
   */
  private async abTestStep(c: CampaignRow, lease: Lease): Promise<boolean> {
    if (!c.variants || !c.ab_test || c.winner_variant !== null || c.winner_due_at) return false;
    if (c.ab_sample_size === null) {
      const size = await abRepo.drawSample(this.sql, c, lease.token);
      if (size === null) throw lease.lose();
      this.log.info({ campaignId: c.id, sample: size }, "A/B test sample drawn");
      c.ab_sample_size = size;
      return size > 0;
    }
    if (c.ab_sample_size === 0) return false;
    if (!(await abRepo.awaitWinner(this.sql, c.id, lease.token, c.ab_test.waitMinutes * this.opts.abMinuteMs))) throw lease.lose();
    this.log.info({ campaignId: c.id, waitMinutes: c.ab_test.waitMinutes }, "A/B test sample handed over; waiting for the winner");
    c.winner_due_at = new Date();
    return false;
  }

  /**
   * A page the contacts service refuses for good (the segment was deleted after the send) ends the
   * audience where it is rather than blocking the campaign in SENDING forever.
   */
  private async readPage(c: CampaignRow, afterId: string | null) {
    const audience = { type: c.audience_type, segmentId: c.segment_id, filter: c.audience_filter, topicId: c.topic_id };
    try {
      return await this.audience.page(c.project_id, audience, afterId, this.opts.pageSize);
    } catch (err) {
      if (!(err instanceof AppError) || !["NOT_FOUND", "VALIDATION_ERROR"].includes(err.code)) throw err;
      this.log.error({ err: err.message, campaignId: c.id, afterId }, "the audience can no longer be read; ending it here");
      return { contacts: [], ended: true };
    }
  }

  /**
   * Hands every pending recipient to the sending service as the window makes room, a batch per call,
   * then settles the page.
   * A round that moved some recipients on goes again at once (sending answers what it got to within
   * its time budget and asks for the rest again). A round that moved none is thrown, to be retried
   * with backoff; after `maxEnqueueAttempts` of those in a row, unless sending is simply away, its
   * recipients are counted failed, so content that sending can never take ends the campaign
   * instead of retrying it for ever.
   */
  private async drain(c: CampaignRow, lease: Lease, meter: RateMeter, attempts: { fruitless: number }): Promise<void> {
    for (;;) {
      const sampleOnly = c.variants !== null && c.winner_variant === null;
      const rows = await fanoutRepo.pending(this.sql, c.id, this.opts.pageSize, this.opts.clock.now(c.project_id), sampleOnly);
      if (rows.length === 0) return;
      const room = await this.room(c, lease, meter, rows.length);
      const batches = batchesOf(rows.slice(0, room), this.opts.batchSize, c.winner_variant);
      const round: Outcome = { queued: [], failed: [], retry: [] };
      await pMap(
        batches,
        async ({ variant, recipients: batch }) => {
          if (round.error !== undefined) return;
          const outcome = await this.enqueue(c, batch, variant);
          round.queued.push(...outcome.queued);
          round.failed.push(...outcome.failed);
          round.retry.push(...outcome.retry);
          if (outcome.error !== undefined) round.error ??= outcome.error;
        },
        { concurrency: this.opts.concurrency },
      );
      const moved = round.queued.length + round.failed.length > 0;
      if (moved || round.error === undefined || sendingAway(round.error)) attempts.fruitless = 0;
      else if (++attempts.fruitless >= this.opts.maxEnqueueAttempts) {
        this.log.error(
          { err: String(round.error), campaignId: c.id, recipients: round.retry.length, attempts: attempts.fruitless },
          "sending refused these recipients on every attempt; counted as failed",
        );
        round.failed.push(...round.retry);
        round.error = undefined;
        attempts.fruitless = 0;
      }
      await fanoutRepo.settle(this.sql, c.id, round.queued, round.failed);
      this.opts.onProgress?.("enqueued", round.queued.length);
      this.opts.onProgress?.("refused", round.failed.length);
      if (round.error !== undefined && !moved) throw round.error;
      this.check(lease);
    }
  }

  /**
   * Waits until the campaign's window has room for a batch (or for all of `wanted`, when fewer), and
   * answers how many recipients may go. Each look also records the campaign's rate for the others.
   */
  private async room(c: CampaignRow, lease: Lease, meter: RateMeter, wanted: number): Promise<number> {
    for (;;) {
      this.check(lease);
      const lane = await fanoutRepo.lane(this.sql, c.id, lease.token, meter.current());
      if (!lane) throw lease.lose();
      meter.add(Date.now(), lane.ended);
      const window = sendWindow(this.opts.window, lane);
      const room = window - lane.outstanding;
      if (room >= Math.min(this.opts.batchSize, wanted, window)) return room;
      await sleep(CREDIT_POLL_MS, undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
  }

  /**
   * One sending.enqueueBatch call. A recipient sending refuses for good is counted as failed; when
   * the whole batch is refused for good for what its recipients share (a body that does not parse,
   * the sender) they all are; when it may be one recipient's doing (its data broke the request, say),
   * each is tried alone so that only the bad one fails. Anything else is to be tried again.
   */
  private async enqueue(c: CampaignRow, batch: Recipient[], variant: number | null): Promise<Outcome> {
    let results: EnqueueBatchResult[];
    try {
      ({ results } = await this.rpc.call(sendingRpc.enqueueBatch, recipientBatch(c, batch, variant)));
    } catch (err) {
      if (!isPermanentEnqueueError(err)) return { queued: [], failed: [], retry: batch.map((r) => r.contactId), error: err };
      if (batch.length === 1 || refusesEveryRecipient(err)) return { queued: [], failed: this.refusedAll(c, batch, err), retry: [] };
      const alone: Outcome = { queued: [], failed: [], retry: [] };
      for (const r of batch) {
        const o = await this.enqueue(c, [r], variant);
        alone.queued.push(...o.queued);
        alone.failed.push(...o.failed);
        alone.retry.push(...o.retry);
        if (o.error !== undefined) alone.error ??= o.error;
      }
      return alone;
    }
    const outcome: Outcome = { queued: [], failed: [], retry: [] };
    for (const [i, r] of results.entries()) {
      const contactId = batch[i]!.contactId;
      if ("emailId" in r) {
        outcome.queued.push(contactId);
        continue;
      }
      const err = new AppError(r.error.code, r.error.message);
      if (isPermanentEnqueueError(err)) outcome.failed.push(this.refused(c, contactId, err));
      else {
        outcome.retry.push(contactId);
        outcome.error ??= err;
      }
    }
    return outcome;
  }

  /** A whole batch refused for what it shares (content, sender): one call, one log line. */
  private refusedAll(c: CampaignRow, batch: Recipient[], err: unknown): string[] {
    if (batch.length === 1) return [this.refused(c, batch[0]!.contactId, err)];
    this.log.warn({ err: String(err), campaignId: c.id, recipients: batch.length }, "batch refused for its content or sender; counted as failed");
    return batch.map((r) => r.contactId);
  }

  private refused(c: CampaignRow, contactId: string, err: unknown): string {
    this.log.warn({ err: String(err), campaignId: c.id, contactId }, "recipient refused; counted as failed");
    return contactId;
  }

  /** Stops claiming, lets each fan-out finish its current batch, and hands the leases back. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.claims.stop();
    await Promise.allSettled([...this.running.values()]);
  }
}
