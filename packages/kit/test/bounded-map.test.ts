import { describe, expect, it } from "vitest";
import { BoundedMap } from "../src/bounded-map.js";

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
