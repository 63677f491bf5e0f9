import { BoundedMap, type Clock, type Logger, type Redis, redisUnavailableWarning, type Sql } from "@mailroom/kit";
import { warmupRepo } from "../db/warmup-repo.js";
import { dayOf, dayStart, msUntilNextDay, nextCap, WARMUP_START } from "../domain/warmup.js";
import type { Provider } from "../domain/providers.js";

/** Warming sender domains whose day's cap a replica keeps (a domain past it reads its cap again). */
const CAPS_KEPT = 10_000;
/** The counters outlive their day by a day, for a replica whose clock is a little behind. */
const COUNTER_TTL_S = 48 * 60 * 60;

/**
 * Warm-up caps (domain/warmup.ts) of sender domains marked `warmup`: each day's emails per provider
 * per domain are counted in Redis (one counter a day, shared by every replica), and the day's cap is
 * set once a day per domain in PostgreSQL from the day before's bounces and complaints. The day is the
 * project's (kit Clock), so a test can move it. Redis down: the cap is not enforced (logged): mail is
 * never held for want of a counter.
 */
export class WarmupCaps {
  private readonly caps = new BoundedMap<string, { day: string; cap: number }>(CAPS_KEPT);
  private readonly redisDown: (err: unknown) => void;

  constructor(
    private readonly sql: Sql,
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    private readonly clock: Clock,
    log: Pick<Logger, "warn">,
  ) {
    this.redisDown = redisUnavailableWarning(log, "warm-up caps not enforced");
  }

  /** null: the email may go today; else how long until the next day, when it may. */
  async admit(projectId: string, senderDomain: string, provider: Provider): Promise<number | null> {
    if (!this.redis) return null;
    const now = this.clock.now(projectId);
    const day = dayOf(now);
    let sent: number;
    try {
      const key = `${this.prefix}:warmup:${projectId}:${senderDomain}:${provider}:${day}`;
      const [[, count]] = (await this.redis.multi().incr(key).expire(key, COUNTER_TTL_S).exec()) as [[unknown, number]];
      sent = count;
    } catch (err) {
      this.redisDown(err);
      return null;
    }
    const cap = await this.capOf(projectId, senderDomain, day, now.getTime() - Date.now());
    return sent <= cap ? null : msUntilNextDay(now);
  }

  /**
   * The domain's cap on `day`: read once a day per replica; the first replica of the day sets it from
   * the day before (`offsetMs`: the project clock's, so that day is read in real time).
   */
  private async capOf(projectId: string, domain: string, day: string, offsetMs: number): Promise<number> {
    const id = `${projectId} ${domain}`;
    const hit = this.caps.get(id);
    if (hit?.day === day) return hit.cap;
    const stored = await warmupRepo.cap(this.sql, projectId, domain);
    let cap = stored?.day === day ? stored.cap : null;
    if (cap === null) {
      const from = new Date(dayStart(day, -1).getTime() - offsetMs);
      const to = new Date(dayStart(day).getTime() - offsetMs);
      const outcome = stored ? await warmupRepo.outcome(this.sql, projectId, domain, from, to) : null;
      const next = stored && outcome ? nextCap(stored.cap, outcome) : WARMUP_START;
      // another replica may have set the day first: its cap is the day's
      cap = await warmupRepo.setCap(this.sql, projectId, domain, day, next);
    }
    this.caps.set(id, { day, cap });
    return cap;
  }
}
