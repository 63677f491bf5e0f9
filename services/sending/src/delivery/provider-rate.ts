import type { Logger, Redis } from "@mailroom/kit";
import { redisUnavailableWarning } from "@mailroom/kit";
import { afterRun, CUT_COOLDOWN_MS, effectiveFactor, GROWTH_PER_MINUTE, MIN_FACTOR } from "../domain/aimd.js";

/**
 * domain/aimd.ts in Redis, one hash per provider {factor, at}: `get` answers the factor in force,
 * `cut` halves it unless it was cut within the cool-down. Redis' own clock, so every replica reads
 * the same factor; answered as a string because Redis truncates a Lua number to an integer.
 */
const SCRIPT = `
local minf = tonumber(ARGV[2])
local growth = tonumber(ARGV[3])
local cooldown = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local d = redis.call('HMGET', KEYS[1], 'factor', 'at')
local f = tonumber(d[1]) or 1
local at = tonumber(d[2]) or (now - 3600000)
local since = math.max(0, now - at)
local eff = math.min(1, f + growth * since / 60000)
if ARGV[1] == 'cut' and since >= cooldown then
  eff = math.max(minf, eff / 2)
  redis.call('HSET', KEYS[1], 'factor', eff, 'at', now)
  redis.call('PEXPIRE', KEYS[1], math.ceil((1 - eff) / growth * 60000) + 1000)
end
return tostring(eff)
`;

type RateRedis = Redis & { mailroomProviderRate(key: string, op: "get" | "cut", min: number, growth: number, cooldownMs: number): Promise<string> };

/** How long a replica reuses the factor it read: one Redis call a second per provider sending. */
const REFRESH_MS = 1000;

/**
 * The AIMD factor of each provider, shared by every replica through Redis (one key per provider), so
 * a provider that deferred mail from one replica is approached slowly by all of them. Without Redis
 * (or while it is away) each replica keeps its own factor by the same rules, logged.
 */
export class ProviderRates {
  private readonly redis: RateRedis | null;
  private readonly read = new Map<string, { factor: number; at: number }>();
  /** The replica's own factors, used while Redis is away. */
  private readonly local = new Map<string, { factor: number; cutAt: number }>();
  private readonly redisDown: (err: unknown) => void;

  constructor(
    redis: Redis | undefined,
    private readonly prefix: string,
    log: Pick<Logger, "warn">,
  ) {
    if (redis && !("mailroomProviderRate" in redis)) redis.defineCommand("mailroomProviderRate", { numberOfKeys: 1, lua: SCRIPT });
    this.redis = (redis as RateRedis | undefined) ?? null;
    this.redisDown = redisUnavailableWarning(log, "provider slow-down kept per replica");
  }

  /** The factor in force for `provider` (1 unless it deferred lately). */
  async factor(provider: string): Promise<number> {
    const hit = this.read.get(provider);
    if (hit && Date.now() - hit.at < REFRESH_MS) return hit.factor;
    return this.call(provider, "get");
  }

  /** A run of deferrals from `provider`: halve its rate (once per cool-down); answers the new factor. */
  cut(provider: string): Promise<number> {
    return this.call(provider, "cut");
  }

  private async call(provider: string, op: "get" | "cut"): Promise<number> {
    let factor: number;
    try {
      if (!this.redis) throw new Error("no Redis");
      factor = Number(await this.redis.mailroomProviderRate(`${this.prefix}:provider-aimd:${provider}`, op, MIN_FACTOR, GROWTH_PER_MINUTE, CUT_COOLDOWN_MS));
    } catch (err) {
      if (this.redis) this.redisDown(err);
      factor = this.localCall(provider, op);
    }
    this.read.set(provider, { factor, at: Date.now() });
    return factor;
  }

  private localCall(provider: string, op: "get" | "cut"): number {
    const now = Date.now();
    const state = this.local.get(provider) ?? { factor: 1, cutAt: -Infinity };
    const since = now - state.cutAt;
    if (op === "cut") {
      const next = afterRun(state.factor, since);
      if (next !== null) {
        this.local.set(provider, { factor: next, cutAt: now });
        return next;
      }
    }
    return effectiveFactor(state.factor, since);
  }
}
