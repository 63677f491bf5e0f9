import { TokenBucket, type Redis } from "@mailroom/kit";
import type { RateDecision } from "../domain/rate-decision.js";

interface Lease {
  tokens: number;
  expires: number;
  limit: number;
  remaining: number;
  rate: number;
}

/** How long leased tokens may be spent locally before they are given up. */
const LEASE_MS = 250;
/** Tokens leased at once: enough to skip Redis on most requests, small enough to waste little. */
const MAX_LEASE = 50;

/**
 * A key's bucket lives in Redis, shared by every gateway replica. Asking Redis on every request
 * would add a network hop to every request, so a replica leases a few tokens at a time (at most a
 * twentieth of the key's rate and never more than 50, so little of a key's budget can sit unused in
 * one replica) and spends them locally for up to 250 ms. Keys with tiny limits lease one token: exact behaviour.
 *
 * Redis down → fail open: rate limiting protects capacity, it is not a correctness property, so an
 * outage of Redis must not take the API down. After a failure Redis is not asked again for a second
 * (a circuit breaker), so requests do not each pay the command timeout.
 */
export class RateLimiter {
  private openUntil = 0;
  private readonly bucket: TokenBucket;
  private readonly leases = new Map<string, Lease>();

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly defaults: { perSecond: number; burst: number },
    private readonly onDegraded: (err: unknown) => void,
  ) {
    this.bucket = new TokenBucket(redis);
  }

  async take(keyId: string, perSecond?: number | null): Promise<RateDecision> {
    const rate = perSecond ?? this.defaults.perSecond;
    const burst = perSecond ? Math.max(perSecond * 2, 1) : this.defaults.burst;
    const now = Date.now();
    const lease = this.leases.get(keyId);
    if (lease && lease.tokens > 0 && now < lease.expires && lease.rate === rate) {
      lease.tokens--;
      return { allowed: true, limit: lease.limit, remaining: lease.remaining + lease.tokens, resetSeconds: reset(burst, lease.remaining, rate), enforced: true };
    }
    const open: RateDecision = { allowed: true, limit: burst, remaining: burst, resetSeconds: 0, enforced: false };
    if (now < this.openUntil) return open;
    try {
      const want = Math.min(MAX_LEASE, Math.max(1, Math.floor(rate / 20)));
      const { granted, remaining, retryAfterMs: retryMs } = await this.bucket.take(`${this.prefix}:rl:${keyId}`, rate, burst, want);
      if (granted < 1) {
        return { allowed: false, limit: burst, remaining: 0, resetSeconds: Math.max(1, Math.ceil(retryMs / 1000)), enforced: true };
      }
      if (granted > 1) {
        // Concurrent misses each lease; adding to a live lease (not replacing it) loses no tokens.
        const live = this.leases.get(keyId);
        if (live && Date.now() < live.expires && live.rate === rate) {
          live.tokens += granted - 1;
          live.remaining = remaining;
        } else {
          if (this.leases.size > 100_000) this.leases.clear();
          this.leases.set(keyId, { tokens: granted - 1, expires: Date.now() + LEASE_MS, limit: burst, remaining, rate });
        }
      }
      return { allowed: true, limit: burst, remaining: remaining + granted - 1, resetSeconds: reset(burst, remaining, rate), enforced: true };
    } catch (err) {
      this.openUntil = Date.now() + 1000;
      this.onDegraded(err);
      return open;
    }
  }
}

function reset(burst: number, remaining: number, rate: number): number {
  return Math.ceil((burst - remaining) / rate);
}
