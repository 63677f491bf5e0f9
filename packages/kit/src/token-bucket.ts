import type { Redis } from "ioredis";

/**
 * A token bucket per key in Redis, refilled continuously. The script reads Redis' own clock, so every
 * replica of every service shares one bucket per key. It grants up to `want` tokens at once and
 * answers [granted, remaining, retryAfterMs].
 */
const SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local data = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(data[1]) or burst
local ts = tonumber(data[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local granted = math.min(want, math.floor(tokens))
local retry = 0
if granted >= 1 then
  tokens = tokens - granted
else
  granted = 0
  retry = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {granted, math.floor(tokens), retry}
`;

type BucketRedis = Redis & { mailroomTakeTokens(key: string, rate: number, burst: number, want: number): Promise<[number, number, number]> };

export interface Grant {
  granted: number;
  remaining: number;
  retryAfterMs: number;
}

export class TokenBucket {
  private readonly redis: BucketRedis;

  constructor(redis: Redis) {
    // A defined command runs by EVALSHA: the script text crosses the wire once, not per call.
    if (!("mailroomTakeTokens" in redis)) redis.defineCommand("mailroomTakeTokens", { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as BucketRedis;
  }

  async take(key: string, rate: number, burst: number, want = 1): Promise<Grant> {
    const [granted, remaining, retryAfterMs] = await this.redis.mailroomTakeTokens(key, rate, burst, want);
    return { granted, remaining, retryAfterMs };
  }
}
