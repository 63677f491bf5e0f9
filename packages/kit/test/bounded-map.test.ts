import { describe, expect, it } from "vitest";
import { BoundedMap, ExpiringMap } from "../src/bounded-map.js";

describe("BoundedMap", () => {
  it("drops the entry stored earliest when a new key would pass the limit, and never for a key it has", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1).set("b", 2);
    m.set("a", 10); // a key it has: nothing dropped
    expect([...m]).toEqual([["a", 10], ["b", 2]]);
    m.set("c", 3);
    expect([...m.keys()]).toEqual(["b", "c"]);
    m.delete("b");
    m.set("b", 4); // deleted and set again: at the back
    m.set("d", 5);
    expect([...m]).toEqual([["b", 4], ["d", 5]]);
  });
});

describe("ExpiringMap", () => {
  it("answers an entry until its time is up, then forgets it; setting again starts its time anew", () => {
    let now = 1000;
    const m = new ExpiringMap<string, number>(2, 500, () => now);
    m.set("a", 1);
    now = 1499;
    expect(m.get("a")).toBe(1);
    now = 1500;
    expect(m.get("a")).toBeUndefined();
    m.set("a", 2);
    now = 1999;
    expect(m.get("a")).toBe(2);
    m.clear();
    expect(m.get("a")).toBeUndefined();
  });

  it("keeps at most its limit, dropping the entry stored earliest", () => {
    const m = new ExpiringMap<string, number>(2, 60_000);
    m.set("a", 1);
    m.set("b", 2);
    m.set("a", 3); // set again: now the latest
    m.set("c", 4);
    expect([m.get("a"), m.get("b"), m.get("c")]).toEqual([3, undefined, 4]);
  });
});
