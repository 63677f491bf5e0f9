import { describe, expect, it } from "vitest";
import { CACHE_TTL, cacheTtl, type DnsAnswer } from "./dns.js";

const answer = (ttl: number | null, records = 1): DnsAnswer => ({
  status: "NOERROR",
  records: Array.from({ length: records }, () => ({ value: "192.0.2.1" })),
  ttl,
});

describe("cacheTtl", () => {
  it("is the shortest TTL of the answers", () => {
    expect(cacheTtl([answer(3600), answer(900), answer(7200)])).toBe(900);
  });
  it("is bounded below and above", () => {
    expect(cacheTtl([answer(0)])).toBe(CACHE_TTL.min);
    expect(cacheTtl([answer(30 * 86_400)])).toBe(CACHE_TTL.max);
  });
  it("remembers a negative answer for at most an hour", () => {
    expect(cacheTtl([answer(86_400), answer(86_400, 0)])).toBe(CACHE_TTL.negativeMax);
  });
  it("uses a default when an answer carries no TTL", () => {
    expect(cacheTtl([answer(86_400), answer(null, 0)])).toBe(CACHE_TTL.unknown);
  });
});
