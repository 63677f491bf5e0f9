import { describe, expect, it } from "vitest";
import type { DomainDns } from "../domain/dns.js";
import { withNearCache, type SharedDomainCache } from "./near-cache.js";

const answer = (value: string): DomainDns => {
  const a = { status: "NOERROR" as const, records: [{ value }], ttl: 300 };
  return { NS: a, A: a, AAAA: a, MX: a };
};

/** A shared cache in memory that counts its reads and keeps each entry for `ttlMs` of the fake clock. */
function fakeShared(clock: { t: number }) {
  const stored = new Map<string, { value: DomainDns; until: number }>();
  let reads = 0;
  const cache: SharedDomainCache = {
    async get(domain) {
      reads++;
      const e = stored.get(domain);
      return e && e.until > clock.t ? { value: e.value, ttlMs: e.until - clock.t } : null;
    },
    async set(domain, value, ttlSeconds) {
      stored.set(domain, { value, until: clock.t + ttlSeconds * 1000 });
    },
  };
  return { cache, reads: () => reads };
}

describe("near cache over the shared DNS cache", () => {
  it("answers a warm domain from memory, without reading the shared cache", async () => {
    const clock = { t: 0 };
    const shared = fakeShared(clock);
    const near = withNearCache(shared.cache, { maxEntries: 10, maxAgeMs: 60_000 }, () => clock.t);
    await near.set("a.example", answer("1"), 300);
    expect(await near.get("a.example")).toEqual(answer("1"));
    expect(shared.reads()).toBe(0);
  });

  it("keeps an entry read from the shared cache no longer than the shared cache still holds it", async () => {
    const clock = { t: 0 };
    const shared = fakeShared(clock);
    await shared.cache.set("b.example", answer("2"), 60); // gone from the shared cache at t = 60 s
    clock.t = 50_000;
    const near = withNearCache(shared.cache, { maxEntries: 10, maxAgeMs: 60_000 }, () => clock.t);
    expect(await near.get("b.example")).toEqual(answer("2"));
    clock.t = 59_000;
    expect(await near.get("b.example")).toEqual(answer("2"));
    expect(shared.reads()).toBe(1);
    clock.t = 60_001;
    expect(await near.get("b.example")).toBeNull(); // expired here and there alike
    expect(shared.reads()).toBe(2);
  });

  it("holds an entry at most maxAgeMs, then asks the shared cache again", async () => {
    const clock = { t: 0 };
    const shared = fakeShared(clock);
    const near = withNearCache(shared.cache, { maxEntries: 10, maxAgeMs: 1_000 }, () => clock.t);
    await near.set("c.example", answer("3"), 3600);
    clock.t = 1_001;
    expect(await near.get("c.example")).toEqual(answer("3"));
    expect(shared.reads()).toBe(1);
  });

  it("drops the entry stored first when full", async () => {
    const clock = { t: 0 };
    const shared = fakeShared(clock);
    const near = withNearCache(shared.cache, { maxEntries: 2, maxAgeMs: 60_000 }, () => clock.t);
    await near.set("1.example", answer("1"), 300);
    await near.set("2.example", answer("2"), 300);
    await near.set("3.example", answer("3"), 300);
    await near.get("2.example");
    await near.get("3.example");
    expect(shared.reads()).toBe(0);
    await near.get("1.example");
    expect(shared.reads()).toBe(1);
  });

  it("misses through to null when neither cache has the domain", async () => {
    const clock = { t: 0 };
    const near = withNearCache(fakeShared(clock).cache, { maxEntries: 2, maxAgeMs: 60_000 }, () => clock.t);
    expect(await near.get("none.example")).toBeNull();
  });
});
