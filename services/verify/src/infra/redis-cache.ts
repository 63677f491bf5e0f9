import type { Redis } from "ioredis";
import { z } from "zod";
import type { DomainDns } from "../domain/dns.js";
import type { SharedDomainCache } from "./near-cache.js";

const Answer = z.object({
  status: z.enum(["NOERROR", "NXDOMAIN", "SERVFAIL", "TIMEOUT", "ERROR"]),
  records: z.array(z.object({ value: z.string(), priority: z.number().optional() })),
  ttl: z.number().nullable(),
  detail: z.string().optional(),
});
const Cached = z.object({ NS: Answer, A: Answer, AAAA: Answer, MX: Answer });

/**
 * DomainCache in Redis: one JSON string per domain under `<prefix>v1:<domain>`, expiring with the
 * DNS TTL. The `v1` is the stored format: change the shape, bump it (old keys just expire).
 * Redis trouble degrades to "no cache" (reported through onError), never to a failed verification.
 * A read also returns the key's remaining TTL (one round trip), for the near cache above it.
 */
export function createRedisCache(redis: Redis, prefix: string, onError: (err: unknown) => void = () => {}): SharedDomainCache {
  const key = (domain: string) => `${prefix}v1:${domain}`;
  return {
    async get(domain) {
      try {
        const [[getErr, text], [ttlErr, ttlMs]] = (await redis.pipeline().get(key(domain)).pttl(key(domain)).exec()) as [
          [Error | null, string | null],
          [Error | null, number],
        ];
        if (getErr || ttlErr) throw getErr ?? ttlErr;
        if (text === null) return null;
        const parsed = Cached.safeParse(JSON.parse(text));
        return parsed.success ? { value: parsed.data as DomainDns, ttlMs } : null;
      } catch (err) {
        onError(err);
        return null;
      }
    },
    async set(domain, value, ttlSeconds) {
      try {
        await redis.set(key(domain), JSON.stringify(value), "EX", ttlSeconds);
      } catch (err) {
        onError(err);
      }
    },
  };
}
