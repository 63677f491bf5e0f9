import type { Redis } from "ioredis";
import type { VerifierDeps } from "./domain/verifier.js";
import { dnsServer } from "@mailroom/kit";
import { createDns2Lookup } from "./infra/dns2-lookup.js";
import { loadLists } from "./infra/load-lists.js";
import { withNearCache } from "./infra/near-cache.js";
import { createRedisCache } from "./infra/redis-cache.js";

export interface VerifierSettings {
  redis: Redis;
  /** `host:port`; unset: the first nameserver of /etc/resolv.conf. */
  dnsServer?: string;
  dnsTimeoutMs: number;
  listsDir?: string;
  /** Redis key prefix of the DNS cache; tests pass a unique one. */
  cachePrefix: string;
  onCacheError?: (err: unknown) => void;
}

/** The verifier's dependencies, built one way for the service and its tests. The lists are read here, once. */
export function verifierDeps(s: VerifierSettings): VerifierDeps {
  return {
    dns: createDns2Lookup(dnsServer(s.dnsServer), s.dnsTimeoutMs),
    // a warm domain is answered from memory (up to a minute), the rest from Redis, shared by replicas
    cache: withNearCache(createRedisCache(s.redis, s.cachePrefix, s.onCacheError), { maxEntries: 10_000, maxAgeMs: 60_000 }),
    lists: loadLists(s.listsDir),
  };
}
