import { BoundedMap } from "@mailroom/kit";
import type { DomainCache, DomainDns } from "../domain/dns.js";

/** The shared (Redis) cache, which also tells how long an entry has left. */
export interface SharedDomainCache {
  get(domain: string): Promise<{ value: DomainDns; ttlMs: number } | null>;
  set(domain: string, value: DomainDns, ttlSeconds: number): Promise<void>;
}

export interface NearCacheOptions {
  maxEntries: number;
  /** The longest an entry is kept here, so replicas do not drift from the shared cache for long. */
  maxAgeMs: number;
}

/**
 * An in-process layer over the shared cache: a warm domain costs no Redis round trip and no parse
 * of its JSON. An entry lives here no longer than the shared cache keeps it (its remaining TTL comes
 * with the value), so DNS TTLs are honoured as before, and at most `maxAgeMs`. When `maxEntries` is
 * reached the entry stored first goes.
 */
export function withNearCache(shared: SharedDomainCache, opts: NearCacheOptions, now: () => number = Date.now): DomainCache {
  const entries = new BoundedMap<string, { value: DomainDns; expires: number }>(opts.maxEntries);
  const remember = (domain: string, value: DomainDns, ttlMs: number) => {
    if (ttlMs <= 0) return;
    entries.delete(domain);
    entries.set(domain, { value, expires: now() + Math.min(ttlMs, opts.maxAgeMs) });
  };
  return {
    async get(domain) {
      const near = entries.get(domain);
      if (near) {
        if (near.expires > now()) return near.value;
        entries.delete(domain);
      }
      const found = await shared.get(domain);
      if (!found) return null;
      remember(domain, found.value, found.ttlMs);
      return found.value;
    },
    async set(domain, value, ttlSeconds) {
      remember(domain, value, ttlSeconds * 1000);
      await shared.set(domain, value, ttlSeconds);
    },
  };
}
