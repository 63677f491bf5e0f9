import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsFixture } from "./dns-fixture.js";
import { closeHarness, openHarness, type Harness } from "./setup.js";

let dns: DnsFixture;
let h: Harness;

beforeAll(async () => ({ dns, h } = await openHarness()));
afterAll(() => closeHarness(dns, h));

const asked = (from: number, name: string) =>
  dns.queries.slice(from).filter((q) => q.name === name).map((q) => q.type).sort();

describe("Redis cache of DNS answers", () => {
  it("looks a domain up once (NS, A, AAAA, MX in parallel), then answers from the cache", async () => {
    const start = dns.queries.length;
    const first = await h.verify("a@cache.example");
    expect(asked(start, "cache.example")).toEqual(["A", "AAAA", "MX", "NS"]);

    const again = dns.queries.length;
    const second = await h.verify("b+tag@CACHE.example");
    expect(dns.queries.length).toBe(again);
    expect(second).toMatchObject({ valid: first.valid, hasMxRecords: true, hasWebsite: true, domainExists: true, isPlusAddressed: true });
  });

  it("keeps the entry as long as the shortest TTL of the answers", async () => {
    const ttl = await h.deps.redis.ttl(`${h.prefix}v1:cache.example`);
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(300); // the MX TTL; NS, A and AAAA have 600
  });

  it("keeps a negative answer for the SOA negative TTL (RFC 2308)", async () => {
    await h.verify("a@gone.example");
    const ttl = await h.deps.redis.ttl(`${h.prefix}v1:gone.example`);
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(300); // SOA minimum 300 < SOA TTL 900
  });

  it("concurrent verifications of one domain share one set of lookups", async () => {
    const start = dns.queries.length;
    const results = await Promise.all(["a", "b", "c"].map((l) => h.verify(`${l}@together.example`)));
    expect(results.every((r) => r.valid)).toBe(true);
    expect(asked(start, "together.example")).toEqual(["A", "AAAA", "MX", "NS"]);
  });

  it("does not cache a failed lookup", async () => {
    await h.verify("a@servfail.example");
    const start = dns.queries.length;
    await h.verify("a@servfail.example");
    expect(asked(start, "servfail.example")).toEqual(["A", "AAAA", "MX", "NS"]);
    expect(await h.deps.redis.exists(`${h.prefix}v1:servfail.example`)).toBe(0);
  });
});
