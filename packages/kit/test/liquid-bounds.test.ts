import { describe, expect, it } from "vitest";
import { Liquid } from "liquidjs";
import { LIQUID_RENDER_LIMIT_MS, LiquidParseCache, isLiquidLimitError, liquidBounds, liquidSourceProblem } from "../src/liquid-bounds.js";

describe("LiquidParseCache", () => {
  it("holds sources up to a sum of their lengths, dropping the least recently used first", () => {
    const cache = new LiquidParseCache<number>(10, 6);
    cache.set("aaaa", 1);
    cache.set("bbb", 2);
    cache.set("cc", 3);
    expect(cache.sourceChars).toBe(9);
    expect(cache.get("aaaa")).toBe(1); // used: now the most recent
    cache.set("ddd", 4); // 12 > 10: "bbb" goes, the least recently used
    expect(cache.get("bbb")).toBeUndefined();
    expect([cache.get("aaaa"), cache.get("cc"), cache.get("ddd")]).toEqual([1, 3, 4]);
    expect(cache.sourceChars).toBe(9);
    cache.set("cc", 5); // a key it has: replaced, not counted twice
    expect(cache.sourceChars).toBe(9);
    expect(cache.get("cc")).toBe(5);
  });

  it("never keeps a source longer than an entry may be, however few entries there are", () => {
    const cache = new LiquidParseCache<number>(100, 10);
    cache.set("x".repeat(11), 1);
    expect(cache.size).toBe(0);
    // a thousand distinct long sources stay within the bound (a count-bounded map held them all)
    const big = new LiquidParseCache<number>(64 * 1024, 8 * 1024);
    for (let i = 0; i < 1000; i++) big.set(`${i}:${"y".repeat(4000)}`, i);
    expect(big.sourceChars).toBeLessThanOrEqual(64 * 1024);
    expect(big.size).toBe(16);
  });
});

describe("liquidBounds", () => {
  const engine = new Liquid(liquidBounds());

  it("stops a render at its time bound", async () => {
    const started = performance.now();
    const err = await engine.parseAndRender("{% for i in (1..1000000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}", {}).catch((e: unknown) => e);
    expect(isLiquidLimitError(err)).toBe(true);
    expect(performance.now() - started).toBeLessThan(LIQUID_RENDER_LIMIT_MS + 400);
  });

  it("refuses a range of tens of millions before it is made", async () => {
    const started = performance.now();
    const err = await engine.parseAndRender("{% assign r = (1..30000000) %}{{ r | size }}", {}).catch((e: unknown) => e);
    expect(isLiquidLimitError(err)).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("names sources with more tags than a parse may take", () => {
    expect(liquidSourceProblem("{{ a }}".repeat(5000))).toBeNull();
    expect(liquidSourceProblem("{{ a }}".repeat(5001))).toBe("has more than 5000 Liquid tags and outputs");
  });
});
