import { redisUnavailableWarning, TokenBucket, type Grant, type Logger, type Redis } from "@mailroom/kit";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The per-project sending rate (SEND_RATE_PER_PROJECT emails/s, one second of burst), shared by every
 * sending replica through one Redis bucket per project, so the relay and the sender's reputation see
 * the configured rate however many workers run. A job waiting for its turn keeps its JetStream
 * message alive (`keepAlive`) instead of being nak'ed, because redeliveries count toward the attempt
 * limit after which an email fails. Redis down: mail flows unthrottled (logged), never stalls.
 */
export class ProjectThrottle {
  private readonly bucket: TokenBucket | null;
  private openUntil = 0;
  private readonly redisDown: (err: unknown) => void;

  constructor(
    redis: Redis | undefined,
    private readonly prefix: string,
    private readonly perSecond: number,
    log: Logger,
  ) {
    this.bucket = redis && perSecond > 0 ? new TokenBucket(redis) : null;
    this.redisDown = redisUnavailableWarning(log, "sending rate not enforced");
  }

  async wait(projectId: string, keepAlive: () => void): Promise<void> {
    if (!this.bucket) return;
    for (;;) {
      if (Date.now() < this.openUntil) return;
      let grant: Grant;
      try {
        grant = await this.bucket.take(`${this.prefix}:send-rate:${projectId}`, this.perSecond, Math.max(1, this.perSecond), 1);
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
