import { BoundedMap, type Redis } from "@mailroom/kit";
import { clientBucket } from "../domain/client-address.js";

export interface LoginLimits {
  /** Failures per email address in a window, and per client address. */
  perEmail: number;
  perClient: number;
  windowMs: number;
}

const LOCAL_ENTRIES = 50_000;

/**
 * This replica's own count of each key in the same fixed windows: what still holds when a Redis
 * command fails or times out (a loaded machine, Redis away), so that guesses are never judged
 * without a count.
 */
class LocalWindows {
  private readonly counts = new BoundedMap<string, { n: number; resetAt: number }>(LOCAL_ENTRIES);

  constructor(private readonly windowMs: number) {}

  incr(key: string, now = Date.now()): { n: number; resetAt: number } {
    const current = this.counts.get(key);
    const next = current && current.resetAt > now ? { n: current.n + 1, resetAt: current.resetAt } : { n: 1, resetAt: now + this.windowMs };
    this.counts.set(key, next);
    return next;
  }

  decr(key: string): void {
    const current = this.counts.get(key);
    if (current) current.n = Math.max(0, current.n - 1);
  }

  delete(key: string): void {
    this.counts.delete(key);
  }
}

/**
 * Failed sign-ins counted in Redis (shared by every replica) in fixed windows, per email address
 * (guessing one account's password) and per client address (trying many accounts). Each attempt
 * takes its place in both counts *before* the password is hashed (decisions.md §15), so parallel
 * guesses are limited exactly as serial ones: of 40 at once with room for 10, 10 are judged and 30
 * get 429 without a hash. A successful attempt gives its place back. Each replica also counts on
 * its own, and the larger count decides: with Redis down or slow, a replica still limits what it
 * sees (N replicas then allow up to N times the limit).
 */
export class LoginThrottle {
  private readonly local: LocalWindows;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: LoginLimits,
    private readonly onDegraded: (err: unknown) => void,
  ) {
    this.local = new LocalWindows(limits.windowMs);
  }

  private keys(email: string, ip: string): [string, string] {
    return [`${this.prefix}:loginfail:email:${email.toLowerCase()}`, `${this.prefix}:loginfail:ip:${clientBucket(ip)}`];
  }

  /**
   * Takes an attempt's place in both counts: null when it may check the password, else the seconds
   * until the spent count's window ends (the attempt is refused with 429 and nothing is hashed).
   */
  async attempt(email: string, ip: string): Promise<number | null> {
    const [byEmail, byClient] = this.keys(email, ip);
    const now = Date.now();
    const local = [this.local.incr(byEmail, now), this.local.incr(byClient, now)] as const;
    let shared: [number, number] = [0, 0];
    try {
      // the window starts at the first attempt; NX keeps later ones from stretching it
      const counted = await this.redis
        .multi()
        .incr(byEmail)
        .pexpire(byEmail, this.limits.windowMs, "NX")
        .incr(byClient)
        .pexpire(byClient, this.limits.windowMs, "NX")
        .exec();
      shared = [Number(counted?.[0]?.[1] ?? 0), Number(counted?.[2]?.[1] ?? 0)];
    } catch (err) {
      this.onDegraded(err);
    }
    const limits = [this.limits.perEmail, this.limits.perClient];
    const spent = [0, 1].filter((i) => Math.max(shared[i]!, local[i]!.n) > limits[i]!);
    if (spent.length === 0) return null;
    const localWait = Math.max(...spent.map((i) => local[i]!.resetAt - now));
    const sharedWait = await Promise.all(spent.map((i) => this.redis.pttl([byEmail, byClient][i]!))).then(
      (ttls) => Math.max(...ttls),
      () => 0,
    );
    return Math.max(1, Math.ceil(Math.max(localWait, sharedWait) / 1000));
  }

  /**
   * The attempt was right: the address's failures are forgiven, and the client's count gives back
   * the place this attempt took (its earlier failures stay counted).
   */
  async succeeded(email: string, ip: string): Promise<void> {
    const [byEmail, byClient] = this.keys(email, ip);
    this.local.delete(byEmail);
    this.local.decr(byClient);
    try {
      const [, [, left] = []] = (await this.redis.multi().del(byEmail).decr(byClient).exec()) ?? [];
      // a window that ended meanwhile leaves no count behind (nor one with no expiry)
      if (Number(left) <= 0) await this.redis.del(byClient);
    } catch (err) {
      this.onDegraded(err);
    }
  }
}
