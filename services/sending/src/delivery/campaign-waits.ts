import { randomUUID } from "node:crypto";
import { Periodic, redisUnavailableWarning, type Logger, type Redis } from "@mailroom/kit";
import type { Provider } from "../domain/providers.js";

/** How often a replica publishes its counts; each entry lives LIVE_MS unless published again. */
const PUBLISH_MS = 1000;
const LIVE_MS = 5000;

/** One replica's field in a campaign's hash: its waiting emails per provider, live until `until`. */
interface Published {
  until: number;
  counts: Record<string, number>;
}

/** Which campaign an email waiting at a provider's gate belongs to. */
export interface CampaignRef {
  projectId: string;
  campaignId: string;
}

/**
 * A campaign's emails waiting at a provider's gate (its connections or its rate, delivery/
 * provider-gate.ts), per provider, summed over every replica: what GET /campaigns/{id} shows in
 * `stats.throttled` beside the warm-up holds kept in the emails' rows. Each replica counts its own
 * waiters in memory (nothing per email leaves the process) and once a second writes its counts into
 * one Redis hash per campaign, a field per replica holding its counts and their expiry: a replica
 * that dies stops counting within LIVE_MS, and a read is one HGETALL. Without Redis a read sees only
 * the replica that answers it.
 */
export class CampaignWaits {
  private readonly replica = randomUUID();
  private readonly counts = new Map<string, Map<Provider, number>>();
  /** Campaigns whose counts changed since the last publish (a zero is published once, as a delete). */
  private readonly changed = new Set<string>();
  private readonly loop: Periodic;
  private readonly redisDown: (err: unknown) => void;

  constructor(
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    log: Pick<Logger, "warn">,
  ) {
    this.redisDown = redisUnavailableWarning(log, "campaigns' provider waits shown per replica");
    this.loop = new Periodic({ name: "campaign waits", everyMs: PUBLISH_MS, log, run: () => this.publish() });
  }

  start(): void {
    if (this.redis) this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    for (const key of this.counts.keys()) this.changed.add(key);
    this.counts.clear();
    await this.publish();
  }

  /** One more (`+1`) or one fewer (`-1`) of the campaign's emails waiting for `provider` here. */
  add(ref: CampaignRef, provider: Provider, delta: 1 | -1): void {
    const key = keyOf(ref);
    let byProvider = this.counts.get(key);
    if (!byProvider) this.counts.set(key, (byProvider = new Map()));
    const n = (byProvider.get(provider) ?? 0) + delta;
    if (n > 0) byProvider.set(provider, n);
    else byProvider.delete(provider);
    if (byProvider.size === 0) this.counts.delete(key);
    this.changed.add(key);
  }

  /** The campaign's waiting emails per provider, on every replica that published in the last LIVE_MS. */
  async of(ref: CampaignRef): Promise<Record<string, number>> {
    const key = keyOf(ref);
    const own = () => Object.fromEntries(this.counts.get(key) ?? []);
    if (!this.redis) return own();
    const out: Record<string, number> = {};
    try {
      const fields = await this.redis.hgetall(this.redisKey(key));
      const now = Date.now();
      for (const value of Object.values(fields)) {
        const { until, counts } = JSON.parse(value) as Published;
        if (until <= now) continue;
        for (const [provider, n] of Object.entries(counts)) out[provider] = (out[provider] ?? 0) + n;
      }
    } catch (err) {
      this.redisDown(err);
      return own();
    }
    return out;
  }

  /** This replica's counts into Redis: the changed campaigns, and the live ones again before they expire. */
  private async publish(): Promise<void> {
    if (!this.redis || (this.changed.size === 0 && this.counts.size === 0)) return;
    const until = Date.now() + LIVE_MS;
    const batch = this.redis.multi();
    for (const key of new Set([...this.changed, ...this.counts.keys()])) {
      const redisKey = this.redisKey(key);
      const byProvider = this.counts.get(key);
      if (!byProvider) {
        batch.hdel(redisKey, this.replica);
        continue;
      }
      const published: Published = { until, counts: Object.fromEntries(byProvider) };
      batch.hset(redisKey, this.replica, JSON.stringify(published)).pexpire(redisKey, LIVE_MS * 2);
    }
    this.changed.clear();
    try {
      await batch.exec();
    } catch (err) {
      this.redisDown(err);
    }
  }

  private redisKey(key: string): string {
    return `${this.prefix}:campaign-waits:${key}`;
  }
}

const keyOf = (ref: CampaignRef) => `${ref.projectId}:${ref.campaignId}`;
