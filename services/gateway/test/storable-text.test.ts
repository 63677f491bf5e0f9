import { describe, expect, it } from "vitest";
import { nestsDeeperThan, unstorableText } from "../src/domain/storable-text.js";

const TEXT = "must not contain NUL characters or unpaired surrogates";

describe("unstorableText", () => {
  it("names each string PostgreSQL cannot store by its path, through objects and arrays", () => {
    const details = unstorableText({ data: { list: ["ok", "a\u0000b"], deep: { note: "x\udc00" } }, fine: "🙂" }, undefined);
    expect(details).toHaveLength(2);
    expect(details).toEqual(
      expect.arrayContaining([
        { path: "data.list.1", message: TEXT },
        { path: "data.deep.note", message: TEXT },
      ]),
    );
  });

  it("names a bad key with the bad character shown as ?", () => {
    expect(unstorableText({ data: { "k\ud800": 1 } }, undefined)).toEqual([
      { path: "data.k?", message: "keys must not contain NUL characters or unpaired surrogates" },
    ]);
  });

  it("prefixes the part of the request, and takes a top-level string", () => {
    expect(unstorableText({ search: "\u0000" }, "query")).toEqual([{ path: "query.search", message: TEXT }]);
    expect(unstorableText("\u0000", "params")).toEqual([{ path: "params", message: TEXT }]);
    expect(unstorableText("\u0000", undefined)).toEqual([{ path: "", message: TEXT }]);
  });

  it("adds to the list it is given and stops at 20 details", () => {
    const details = unstorableText({ id: "\u0000" }, "params");
    unstorableText(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "\u0000"])), undefined, details);
    expect(details[0]).toEqual({ path: "params.id", message: TEXT });
    expect(details).toHaveLength(20);
  });

  it("finds nothing in clean values, numbers, null and empty objects", () => {
    expect(unstorableText({ a: [1, null, true, { b: "text" }], c: {} }, undefined)).toEqual([]);
    expect(unstorableText(undefined, undefined)).toEqual([]);
    expect(unstorableText(42, "query")).toEqual([]);
  });
});

describe("nestsDeeperThan", () => {
  it("tells a value nested past the limit from one at it", () => {
    const nest = (n: number) => Array.from({ length: n }).reduce<unknown>((v) => ({ a: v }), 1);
    expect(nestsDeeperThan(nest(3), 3)).toBe(false);
    expect(nestsDeeperThan(nest(4), 3)).toBe(true);
    expect(nestsDeeperThan(nest(10_000))).toBe(true);
  });
});
