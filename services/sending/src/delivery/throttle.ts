import { redisUnavailableWarning, TokenBucket, type Grant, type Logger, type Redis } from "@mailroom/kit";
import type { DeliveryLane } from "../domain/lanes.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often a bulk job stepping aside for a transactional one looks again. */
const YIELD_MS = 50;

/**
 * The per-project sending rate (SEND_RATE_PER_PROJECT emails/s, one second of burst), shared by every
 * sending replica through one Redis bucket per project, so the relay and the sender's reputation see
 * the configured rate however many workers run. A job waiting for its turn keeps its JetStream
 * message alive (`keepAlive`) instead of being nak'ed, because redeliveries count toward the attempt
 * limit after which an email fails. Redis down: mail flows unthrottled (logged), never stalls.
 *
 * A project's transactional mail takes its tokens first: while one of its transactional jobs waits
 * here, this replica's bulk jobs of that project take none, so a password reset does not wait
 * behind the project's own campaign for a turn at the bucket.
 */
export class ProjectThrottle {
  private readonly bucket: TokenBucket | null;
  private openUntil = 0;
  private readonly redisDown: (err: unknown) => void;
  /** projectId → transactional jobs waiting for a token here. */
  private readonly transactionalWaiting = new Map<string, number>();

  constructor(
    redis: Redis | undefined,
    private readonly prefix: string,
    private readonly perSecond: number,
    log: Logger,
  ) {
    this.bucket = redis && perSecond > 0 ? new TokenBucket(redis) : null;
    this.redisDown = redisUnavailableWarning(log, "sending rate not enforced");
  }

  async wait(projectId: string, lane: DeliveryLane, keepAlive: () => void): Promise<void> {
    if (!this.bucket) return;
    if (lane === "bulk") return this.take(projectId, keepAlive, true);
    this.transactionalWaiting.set(projectId, (this.transactionalWaiting.get(projectId) ?? 0) + 1);
    try {
      await this.take(projectId, keepAlive, false);
    } finally {
      const left = (this.transactionalWaiting.get(projectId) ?? 1) - 1;
      if (left > 0) this.transactionalWaiting.set(projectId, left);
      else this.transactionalWaiting.delete(projectId);
    }
  }

  private async take(projectId: string, keepAlive: () => void, yields: boolean): Promise<void> {
    for (;;) {
      if (Date.now() < this.openUntil) return;
      // (the worker's own renewal keeps the job and its lease meanwhile)
      if (yields && this.transactionalWaiting.has(projectId)) {
        await sleep(YIELD_MS);
        continue;
      }
      let grant: Grant;
      try {
        grant = await this.bucket!.take(`${this.prefix}:send-rate:${projectId}`, this.perSecond, Math.max(1, this.perSecond), 1);
      } catch (err) {
        this.openUntil = Date.now() + 1000;
        this.redisDown(err);
        return;
      }
      if (grant.granted > 0) return;
      keepAlive();
      await sleep(Math.min(Math.max(grant.retryAfterMs, 5), 1000));
    }
  }
}
