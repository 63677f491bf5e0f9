import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import pMap from "p-map";
import { AppError, type EnqueueBatchResult, sendingRpc } from "@mailroom/contracts";
import { newId, type Logger, type RpcClient, type Sql } from "@mailroom/kit";
import { campaignsRepo, type CampaignRow } from "../db/campaigns-repo.js";
import { fanoutRepo } from "../db/fanout-repo.js";
import { isPermanentEnqueueError, recipientBatch, type Recipient } from "../domain/emails.js";
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
}

/** How often a fan-out whose window is full looks again. */
const CREDIT_POLL_MS = 200;

/** Another replica took the campaign over (our lease expired): stop without touching it. */
class LeaseLost extends Error {}
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
  private readonly owner = `${hostname()}:${process.pid}:${newId()}`;
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly audience: AudienceSource,
    private readonly log: Logger,
    private readonly opts: FanoutOptions,
  ) {}

  /** Also polls, so campaigns started by the scheduler elsewhere or left by a dead replica are found. */
  start(): void {
    this.timer = setInterval(() => this.kick(), Math.min(1000, this.opts.leaseMs / 3));
    this.kick();
  }

  /** Looks for work now (a campaign has just become SENDING). */
  kick(): void {
    if (this.abort.signal.aborted || this.claiming) return;
    this.claiming = this.claimAll()
      .catch((err) => this.log.warn({ err: String(err) }, "fan-out claim failed"))
      .finally(() => (this.claiming = undefined));
  }

  private async claimAll(): Promise<void> {
    while (!this.abort.signal.aborted && this.running.size < this.opts.maxFanouts) {
      const campaign = await fanoutRepo.claim(this.sql, this.owner, this.opts.leaseMs);
      if (!campaign) return;
      const run = this.run(campaign).finally(() => this.running.delete(campaign.id));
      this.running.set(campaign.id, run);
    }
  }

  private async run(c: CampaignRow): Promise<void> {
    let lost = false;
    const renew = setInterval(() => {
      fanoutRepo
        .renew(this.sql, c.id, this.owner, this.opts.leaseMs)
        .then((held) => (lost ||= !held))
        .catch(() => undefined); // a database blip: the next renewal (or the lease expiry) decides
    }, this.opts.leaseMs / 3);
    const check = () => {
      if (lost) throw new LeaseLost();
      if (this.abort.signal.aborted) throw new Stopping();
    };
    this.log.info({ campaignId: c.id, resumeAfter: c.last_contact_id }, "fan-out started");
    try {
      await this.fanOut(c, check, new RateMeter(c.send_rate));
      this.log.info({ campaignId: c.id }, "fan-out complete");
    } catch (err) {
      if (err instanceof LeaseLost) this.log.warn({ campaignId: c.id }, "fan-out lease lost; another replica continues");
      else if (!(err instanceof Stopping)) this.log.error({ err, campaignId: c.id }, "fan-out stopped");
    } finally {
      clearInterval(renew);
      if (this.abort.signal.aborted && !lost) await fanoutRepo.release(this.sql, c.id, this.owner).catch(() => undefined);
    }
  }

  private async fanOut(c: CampaignRow, check: () => void, meter: RateMeter): Promise<void> {
    let afterId = c.last_contact_id;
    let audienceDone = c.audience_done;
    let backoff = 0;
    for (;;) {
      check();
      try {
        await this.drain(c, check, meter);
        if (audienceDone) {
          if (await fanoutRepo.finish(this.sql, c.id, this.owner)) await campaignsRepo.completeFinished(this.sql, [c.id]);
          return;
        }
        const page = await this.readPage(c, afterId);
        if (!(await fanoutRepo.addPage(this.sql, c.id, this.owner, page.contacts, page.ended))) throw new LeaseLost();
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
   * A page the contacts service refuses for good (the segment was deleted after the send) ends the
   * audience where it is rather than blocking the campaign in SENDING forever.
   */
  private async readPage(c: CampaignRow, afterId: string | null) {
    const audience = { type: c.audience_type, segmentId: c.segment_id, filter: c.audience_filter };
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
   * and settles them.
   */
  private async drain(c: CampaignRow, check: () => void, meter: RateMeter): Promise<void> {
    for (;;) {
      const rows = await fanoutRepo.pending(this.sql, c.id, this.opts.pageSize);
      if (rows.length === 0) return;
      const room = await this.room(c, check, meter, rows.length);
      const recipients = rows.slice(0, room).map((r) => ({ contactId: r.contact_id, email: r.email, data: r.data }));
      const batches: Recipient[][] = [];
      for (let i = 0; i < recipients.length; i += this.opts.batchSize) batches.push(recipients.slice(i, i + this.opts.batchSize));
      const queued: string[] = [];
      const failed: string[] = [];
      let retry: unknown;
      await pMap(
        batches,
        async (batch) => {
          if (retry !== undefined) return;
          try {
            const outcome = await this.enqueue(c, batch);
            queued.push(...outcome.queued);
            failed.push(...outcome.failed);
          } catch (err) {
            retry ??= err;
          }
        },
        { concurrency: this.opts.concurrency },
      );
      await fanoutRepo.settle(this.sql, c.id, queued, failed);
      this.opts.onProgress?.("enqueued", queued.length);
      this.opts.onProgress?.("refused", failed.length);
      if (retry !== undefined) throw retry;
      check();
    }
  }

  /**
   * Waits until the campaign's window has room for a batch (or for all of `wanted`, when fewer), and
   * answers how many recipients may go. Each look also records the campaign's rate for the others.
   */
  private async room(c: CampaignRow, check: () => void, meter: RateMeter, wanted: number): Promise<number> {
    for (;;) {
      check();
      const lane = await fanoutRepo.lane(this.sql, c.id, this.owner, meter.current());
      if (!lane) throw new LeaseLost();
      meter.add(Date.now(), lane.ended);
      const window = sendWindow(this.opts.window, lane);
      const room = window - lane.outstanding;
      if (room >= Math.min(this.opts.batchSize, wanted, window)) return room;
      await sleep(CREDIT_POLL_MS, undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
  }

  /**
   * One sending.enqueueBatch call. A recipient sending refuses for good is counted as failed; when
   * the whole batch is refused for good (a recipient's data broke the request, say), each recipient
   * is tried alone so that only the bad one fails. Anything else is thrown, to be retried.
   */
  private async enqueue(c: CampaignRow, batch: Recipient[]): Promise<{ queued: string[]; failed: string[] }> {
    let results: EnqueueBatchResult[];
    try {
      ({ results } = await this.rpc.call(sendingRpc.enqueueBatch, recipientBatch(c, batch)));
    } catch (err) {
      if (!isPermanentEnqueueError(err)) throw err;
      if (batch.length === 1) return { queued: [], failed: [this.refused(c, batch[0]!.contactId, err)] };
      const alone: Array<{ queued: string[]; failed: string[] }> = [];
      for (const r of batch) alone.push(await this.enqueue(c, [r]));
      return { queued: alone.flatMap((o) => o.queued), failed: alone.flatMap((o) => o.failed) };
    }
    const queued: string[] = [];
    const failed: string[] = [];
    for (const [i, r] of results.entries()) {
      const contactId = batch[i]!.contactId;
      if ("emailId" in r) {
        queued.push(contactId);
        continue;
      }
      const err = new AppError(r.error.code, r.error.message);
      if (!isPermanentEnqueueError(err)) throw err;
      failed.push(this.refused(c, contactId, err));
    }
    return { queued, failed };
  }

  private refused(c: CampaignRow, contactId: string, err: unknown): string {
    this.log.warn({ err: String(err), campaignId: c.id, contactId }, "recipient refused; counted as failed");
    return contactId;
  }

  /** Stops claiming, lets each fan-out finish its current batch, and hands the leases back. */
  async stop(): Promise<void> {
    this.abort.abort();
    clearInterval(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.running.values()]);
  }
}
