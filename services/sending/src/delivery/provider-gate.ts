import { redisUnavailableWarning, TokenBucket, type Logger, type Metrics, type Redis } from "@mailroom/kit";
import { DeferralRun, slowedPerMinute } from "../domain/aimd.js";
import type { DeliveryLimits } from "../domain/delivery-limits.js";
import type { DeliveryLane } from "../domain/lanes.js";
import type { Provider } from "../domain/providers.js";
import type { ProviderRates } from "./provider-rate.js";
import type { CampaignRef, CampaignWaits } from "./campaign-waits.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Tokens taken from Redis at once: up to this long of the provider's rate, so a fast provider costs a
 * Redis call per few emails and a slow one (600 a minute) still one token at a time.
 */
const RESERVE_MS = 50;
/** The bucket holds a quarter second of the rate: enough that a late waker loses little, too little to bunch. */
const BURST_MS = 250;

interface Waiter {
  go: () => void;
}

/** One provider on one replica: its sends in flight, its waiters (transactional first), its reserve. */
class ProviderLine {
  inFlight = 0;
  tokens = 0;
  pumping = false;
  readonly transactional: Waiter[] = [];
  readonly bulk: Waiter[] = [];
  readonly run = new DeferralRun();

  constructor(readonly label: string) {}

  get waiting(): number {
    return this.transactional.length + this.bulk.length;
  }

  next(): Waiter | undefined {
    return this.transactional.shift() ?? this.bulk.shift();
  }
}

/**
 * Per-provider limits (DELIVERY_LIMITS, decisions.md §18) in front of the relay: at most `connections`
 * sends in flight to a provider per replica, and `perMinute` messages a minute across every replica
 * (a Redis token bucket per provider, its rate scaled by the provider's AIMD factor after deferrals).
 * An email waits here before it takes a slot of its lane, so mail for a slow provider never holds the
 * slots that another provider's mail could use; its job stays alive meanwhile (the worker's keep-alive
 * and the lease heartbeat), as ProjectThrottle's waiters do. Redis down: the rate is not enforced
 * (logged), the connections still are. With the defaults (no rate, more connections than slots) an
 * email passes without a Redis call or a timer.
 */
export class ProviderGate {
  private readonly lines = new Map<Provider, ProviderLine>();
  private readonly bucket: TokenBucket | null;
  private openUntil = 0;
  private readonly redisDown: (err: unknown) => void;

  constructor(
    private readonly limits: DeliveryLimits,
    private readonly rates: ProviderRates,
    redis: Redis | undefined,
    private readonly prefix: string,
    private readonly metrics: Pick<Metrics, "providerWaiting" | "providerThrottled" | "providerRateFactor">,
    log: Pick<Logger, "warn">,
    /** Counts a campaign's emails while they wait here, for its `stats.throttled`. */
    private readonly waits: CampaignWaits,
  ) {
    this.bucket = redis ? new TokenBucket(redis) : null;
    this.redisDown = redisUnavailableWarning(log, "provider rates (DELIVERY_LIMITS) not enforced");
  }

  /**
   * Waits for a turn at `provider`; the caller must `release` it once the relay has answered. The
   * email, when it is a campaign's, counts as the campaign's while it waits.
   */
  async acquire(provider: Provider, lane: DeliveryLane, email?: { projectId: string; campaignId: string | null }): Promise<void> {
    const line = this.line(provider);
    const limit = this.limits.of(provider);
    // the defaults' path: nobody ahead, a connection free, no rate to ask Redis about
    if (line.waiting === 0 && line.inFlight < limit.connections && (limit.perMinute === 0 || line.tokens >= 1)) {
      if (limit.perMinute > 0) line.tokens--;
      line.inFlight++;
      return;
    }
    this.metrics.providerThrottled.inc({ provider: line.label, reason: line.inFlight >= limit.connections ? "connections" : "rate" });
    const campaign: CampaignRef | null = email?.campaignId ? { projectId: email.projectId, campaignId: email.campaignId } : null;
    if (campaign) this.waits.add(campaign, provider, 1);
    await new Promise<void>((go) => {
      const turn = () => {
        if (campaign) this.waits.add(campaign, provider, -1);
        go();
      };
      (lane === "transactional" ? line.transactional : line.bulk).push({ go: turn });
      this.metrics.providerWaiting.inc({ provider: line.label });
      void this.pump(provider, line);
    });
  }

  release(provider: Provider): void {
    const line = this.line(provider);
    line.inFlight--;
    if (line.waiting > 0) void this.pump(provider, line);
    // a provider without limits of its own is forgotten when idle, so the map stays as small as the traffic
    else if (line.inFlight === 0 && line.label === "other") this.lines.delete(provider);
  }

  /**
   * The relay's answer for a message to `provider`: a 4xx (`deferred`) or not. A run of deferrals
   * halves the provider's rate for every replica (domain/aimd.ts).
   */
  async answered(provider: Provider, deferred: boolean): Promise<void> {
    const line = this.line(provider);
    if (!deferred) return line.run.taken();
    if (!line.run.deferred() || this.limits.of(provider).perMinute === 0) return;
    this.metrics.providerRateFactor.set({ provider: line.label }, await this.rates.cut(provider));
  }

  /** Counts an email held back for `provider` elsewhere (a warm-up cap), under the gate's bounded label. */
  held(provider: Provider, reason: "warmup"): void {
    this.metrics.providerThrottled.inc({ provider: this.labelOf(provider), reason });
  }

  /** Hands turns to waiters while the provider has connections and tokens; one pump per provider at a time. */
  private async pump(provider: Provider, line: ProviderLine): Promise<void> {
    if (line.pumping) return;
    line.pumping = true;
    try {
      while (line.waiting > 0) {
        const limit = this.limits.of(provider);
        if (line.inFlight >= limit.connections) return; // a release pumps again
        if (limit.perMinute > 0 && line.tokens < 1) {
          const waitMs = await this.refill(provider, line, limit.perMinute);
          if (waitMs > 0) {
            await sleep(waitMs);
            continue;
          }
        }
        if (limit.perMinute > 0 && line.tokens >= 1) line.tokens--;
        line.inFlight++;
        this.metrics.providerWaiting.dec({ provider: line.label });
        line.next()!.go();
      }
    } finally {
      line.pumping = false;
    }
  }

  /** Takes tokens from the provider's bucket into the line's reserve; answers how long to wait when there were none. */
  private async refill(provider: Provider, line: ProviderLine, perMinute: number): Promise<number> {
    if (!this.bucket || Date.now() < this.openUntil) {
      line.tokens = 1; // unenforced while Redis is away
      return 0;
    }
    try {
      const factor = await this.rates.factor(provider);
      this.metrics.providerRateFactor.set({ provider: line.label }, factor);
      const perSecond = slowedPerMinute(perMinute, factor) / 60;
      const want = Math.max(1, Math.min(line.waiting, Math.floor((perSecond * RESERVE_MS) / 1000)));
      const burst = Math.max(want, (perSecond * BURST_MS) / 1000, 1);
      const grant = await this.bucket.take(`${this.prefix}:provider-rate:${provider}`, perSecond, burst, want);
      line.tokens += grant.granted;
      return grant.granted > 0 ? 0 : Math.min(Math.max(grant.retryAfterMs, 5), 1000);
    } catch (err) {
      this.openUntil = Date.now() + 1000;
      this.redisDown(err);
      line.tokens = 1;
      return 0;
    }
  }

  /** A provider with a limit of its own is a metric label of its own; the many others share one. */
  private labelOf(provider: Provider): string {
    return this.limits.has(provider) ? provider : "other";
  }

  private line(provider: Provider): ProviderLine {
    let line = this.lines.get(provider);
    if (!line) {
      line = new ProviderLine(this.labelOf(provider));
      this.lines.set(provider, line);
    }
    return line;
  }
}
