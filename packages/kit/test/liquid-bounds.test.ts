import { describe, expect, it } from "vitest";
import { Liquid } from "liquidjs";
import { LIQUID_RENDER_LIMIT_MS, LiquidParseCache, isLiquidLimitError, liquidBounds, liquidSourceProblem, retryPastTimeLimit } from "../src/liquid-bounds.js";

describe("LiquidParseCache", () => {
  it("holds sources up to a sum of their lengths, dropping the earliest stored first", () => {
    const cache = new LiquidParseCache<number>(10, 6);
    cache.set("aaaa", 1);
    cache.set("bbb", 2);
    cache.set("cc", 3);
    expect(cache.sourceChars).toBe(9);
    cache.set("ddd", 4); // 12 > 10: "aaaa" goes, the earliest
    expect(cache.get("aaaa")).toBeUndefined();
    expect([cache.get("bbb"), cache.get("cc"), cache.get("ddd")]).toEqual([2, 3, 4]);
    expect(cache.sourceChars).toBe(8);
    cache.set("cc", 5); // a key it has: replaced, not counted twice
    expect(cache.sourceChars).toBe(8);
    expect(cache.get("cc")).toBe(5);
    cache.set("eeeee", 6); // 13 > 10: "bbb" goes (the earliest now), and 10 fit
    expect([cache.get("bbb"), cache.get("ddd"), cache.get("cc"), cache.get("eeeee")]).toEqual([undefined, 4, 5, 6]);
    expect(cache.sourceChars).toBe(10);
    cache.set("ffffff", 7); // 16 > 10: "ddd" goes, then "cc" (set again after it), then 11 > 10: "eeeee"
    expect([cache.get("ddd"), cache.get("cc"), cache.get("eeeee"), cache.get("ffffff")]).toEqual([undefined, undefined, undefined, 7]);
    expect(cache.sourceChars).toBe(6);
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
    // a billion iterations run for minutes unbounded; seconds of slack keep a loaded machine from failing this
    expect(performance.now() - started).toBeLessThan(LIQUID_RENDER_LIMIT_MS + 5_000);
  });

  it("refuses a range of tens of millions before it is made", async () => {
    const err = await engine.parseAndRender("{% assign r = (1..30000000) %}{{ r | size }}", {}).catch((e: unknown) => e);
    // the memory bound, not the time bound (which only fires once a range was made)
    expect((err as Error).message).toMatch(/memory alloc limit exceeded/);
  });

  it("names sources with more tags than a parse may take", () => {
    expect(liquidSourceProblem("{{ a }}".repeat(5000))).toBeNull();
    expect(liquidSourceProblem("{{ a }}".repeat(5001))).toBe("has more than 5000 Liquid tags and outputs");
  });
});

describe("retryPastTimeLimit", () => {
  const failing = (message: string, times: number) => {
    let calls = 0;
    const render = async () => {
      calls++;
      if (calls <= times) throw new Error(message);
      return "ok";
    };
    return { render, calls: () => calls };
  };

  it("tries a render past its time bound once more: a pause of the process is not the template's fault", async () => {
    const once = failing("template render limit exceeded, line:1, col:1", 1);
    expect(await retryPastTimeLimit(once.render)).toBe("ok");
    expect(once.calls()).toBe(2);
    const always = failing("template render limit exceeded", 5);
    await expect(retryPastTimeLimit(always.render)).rejects.toThrow(/template render limit exceeded/);
    expect(always.calls()).toBe(2);
  });

  it("does not repeat what another try cannot change", async () => {
    for (const message of ["memory alloc limit exceeded", "tag \"x\" not found"]) {
      const r = failing(message, 1);
      await expect(retryPastTimeLimit(r.render)).rejects.toThrow(message);
      expect(r.calls()).toBe(1);
    }
  });
});
