import { Redis } from "ioredis";

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
