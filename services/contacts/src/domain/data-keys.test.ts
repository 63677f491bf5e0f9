import { describe, expect, it } from "vitest";
import { MAX_DATA_KEYS, dataKeyPaths } from "./data-keys.js";

describe("dataKeyPaths", () => {
  it("names leaves by their dotted path, once, sorted", () => {
    expect(dataKeyPaths([{ plan: "pro", company: { size: 10, name: "A" } }, { plan: "free", tags: ["a"] }])).toEqual([
      "company.name",
      "company.size",
      "plan",
      "tags",
    ]);
  });

  it("stops walking at the depth bound and keeps empty objects as keys", () => {
    expect(dataKeyPaths([{ a: { b: { c: { d: 1 } } }, e: {} }])).toEqual(["a.b.c", "e"]);
  });

  it("keeps at most MAX_DATA_KEYS", () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_DATA_KEYS + 50 }, (_, i) => [`k${i}`, i]));
    expect(dataKeyPaths([wide])).toHaveLength(MAX_DATA_KEYS);
  });
});
