import type { Redis } from "@mailroom/kit";
import { clientBucket } from "../domain/client-address.js";

export interface LoginLimits {
  /** Failures per email address in a window, and per client address. */
  perEmail: number;
  perClient: number;
  windowMs: number;
}

/**
 * Failed sign-ins counted in Redis (shared by every replica) in fixed windows, per email address
 * (guessing one account's password) and per client address (trying many accounts). Past either
 * count, 429 until the window ends, without checking the password. Redis down: not enforced, as
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

  /** Seconds to wait when either count is spent, else null. */
  async blocked(email: string, ip: string): Promise<number | null> {
    const [byEmail, byClient] = this.keys(email, ip);
    try {
      const [e, c] = await this.redis.mget(byEmail, byClient);
      const spent = [
        ...(Number(e ?? 0) >= this.limits.perEmail ? [byEmail] : []),
        ...(Number(c ?? 0) >= this.limits.perClient ? [byClient] : []),
      ];
      if (spent.length === 0) return null;
      const ttls = await Promise.all(spent.map((k) => this.redis.pttl(k)));
      return Math.max(1, Math.ceil(Math.max(...ttls) / 1000));
    } catch (err) {
      this.onDegraded(err);
      return null;
    }
  }

  async failed(email: string, ip: string): Promise<void> {
    try {
      for (const key of this.keys(email, ip)) {
        // the window starts at the first failure; NX keeps later ones from stretching it
        await this.redis.multi().incr(key).pexpire(key, this.limits.windowMs, "NX").exec();
      }
    } catch (err) {
      this.onDegraded(err);
    }
  }

  /** A successful sign-in forgives that address's failures (the client address's stay counted). */
  async succeeded(email: string, ip: string): Promise<void> {
    await this.redis.del(this.keys(email, ip)[0]).catch(this.onDegraded);
  }
}
