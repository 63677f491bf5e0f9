import type { Redis } from "@mailroom/kit";
import { clientBucket } from "./client-address.js";

export interface LoginLimits {
  /** Failures per email address in a window, and per client address. */
  perEmail: number;
  perClient: number;
  windowMs: number;
}

/**
 * Failed sign-ins counted in Redis (shared by every replica) in fixed windows, per email address
 * (guessing one account's password) and per client address (trying many accounts). Each attempt
 * takes its place in both counts *before* the password is hashed (decisions.md §15), so parallel
 * guesses are limited exactly as serial ones: of 40 at once with room for 10, 10 are judged and 30
 * get 429 without a hash. A successful attempt gives its place back. Redis down: not enforced, as
 * with the other rate limits, since the password hash still makes each guess cost.
 */
export class LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: LoginLimits,
    private readonly onDegraded: (err: unknown) => void,
  ) {}

  private keys(email: string, ip: string): [string, string] {
    return [`${this.prefix}:loginfail:email:${email.toLowerCase()}`, `${this.prefix}:loginfail:ip:${clientBucket(ip)}`];
  }

  /**
   * Takes an attempt's place in both counts: null when it may check the password, else the seconds
   * until the spent count's window ends (the attempt is refused with 429 and nothing is hashed).
   */
  async attempt(email: string, ip: string): Promise<number | null> {
    const [byEmail, byClient] = this.keys(email, ip);
    try {
      // the window starts at the first attempt; NX keeps later ones from stretching it
      const counted = await this.redis
        .multi()
        .incr(byEmail)
        .pexpire(byEmail, this.limits.windowMs, "NX")
        .incr(byClient)
        .pexpire(byClient, this.limits.windowMs, "NX")
        .exec();
      const [e, c] = [Number(counted?.[0]?.[1] ?? 0), Number(counted?.[2]?.[1] ?? 0)];
      const spent = [...(e > this.limits.perEmail ? [byEmail] : []), ...(c > this.limits.perClient ? [byClient] : [])];
      if (spent.length === 0) return null;
      const ttls = await Promise.all(spent.map((k) => this.redis.pttl(k)));
      return Math.max(1, Math.ceil(Math.max(...ttls) / 1000));
    } catch (err) {
      this.onDegraded(err);
      return null;
    }
  }

  /**
   * The attempt was right: the address's failures are forgiven, and the client's count gives back
   * the place this attempt took (its earlier failures stay counted).
   */
  async succeeded(email: string, ip: string): Promise<void> {
    const [byEmail, byClient] = this.keys(email, ip);
    try {
      const [, [, left] = []] = (await this.redis.multi().del(byEmail).decr(byClient).exec()) ?? [];
      // a window that ended meanwhile leaves no count behind (nor one with no expiry)
      if (Number(left) <= 0) await this.redis.del(byClient);
    } catch (err) {
      this.onDegraded(err);
    }
  }
}
