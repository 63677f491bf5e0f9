import { describe, expect, it } from "vitest";
import { isId, newId } from "../src/ids.js";

describe("newId", () => {
  it("makes distinct version-7 ids that sort in the order they were made", () => {
    const ids = Array.from({ length: 20_000 }, newId); // more than one pool of random bytes
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i - 1]! < ids[i]!).toBe(true);
    for (const id of ids.slice(0, 50)) {
      expect(isId(id)).toBe(true);
      expect(id[14]).toBe("7"); // version
      expect("89ab").toContain(id[19]); // RFC 9562 variant
    }
  });

  it("carries the time of making in its first 48 bits", () => {
    const before = Date.now();
    const id = newId();
    const ms = parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("does not repeat its random part across pools", () => {
    const tails = new Set(Array.from({ length: 1000 }, () => newId().slice(24)));
    expect(tails.size).toBe(1000);
  });
});
