import { Redis } from "ioredis";
import type { Logger } from "./logger.js";
import { warnEvery } from "./warn-every.js";

export type { Redis };

/**
 * Redis holds only what can be rebuilt (rate-limit buckets, caches), so every command fails fast
 * while it is down (no offline queue, short command timeout) and callers degrade instead of hanging.
 */
export function createRedis(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: 500,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on("error", () => undefined); // reconnects by itself; readiness reports it
  return redis;
}

export async function connectRedis(redis: Redis): Promise<void> {
  await redis.connect().catch(() => undefined); // the service starts degraded; /readyz shows it
}

/**
 * The warning a service logs when a Redis command fails and it carries on without (`what` says how,
 * e.g. "rate limits not enforced"): at once, then every 10 s for as long as Redis stays down.
 */
export function redisUnavailableWarning(log: Pick<Logger, "warn">, what: string, now?: () => number): (err: unknown) => void {
  return warnEvery(log, REDIS_WARNING_INTERVAL_MS, `redis unavailable: ${what}`, now);
}

export const REDIS_WARNING_INTERVAL_MS = 10_000;
