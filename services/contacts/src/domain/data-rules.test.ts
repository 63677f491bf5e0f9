import { describe, expect, it } from "vitest";
import { AppError, type JsonValue } from "@mailroom/contracts";
import { DATA_LIMITS, RESERVED_KEYS, applyContactData, type EntryPoint } from "./data-rules.js";

const ENTRIES: EntryPoint[] = ["send", "track", "api"];
const once = (value: JsonValue) => ({ value, persistent: false });

describe("rule 1: primitives are stored (and are template variables on send and track)", () => {
  it.each(ENTRIES)("%s stores strings, numbers and booleans", (entry) => {
    const r = applyContactData({ keep: 1 }, { s: "a", n: 2.5, b: false, z: 0 }, entry);
    expect(r.stored).toEqual({ keep: 1, s: "a", n: 2.5, b: false, z: 0 });
    expect(r.changedKeys.sort()).toEqual(["b", "n", "s", "z"]);
    expect(r.templateData).toEqual(r.stored);
  });

  it("re-storing the same value is not a change", () => {
    expect(applyContactData({ plan: "pro" }, { plan: "pro" }, "api").changedKeys).toEqual([]);
  });
});

describe("rule 2: null deletes the key", () => {
  it.each(ENTRIES)("%s deletes", (entry) => {
    const r = applyContactData({ plan: "pro", keep: true }, { plan: null }, entry);
    expect(r.stored).toEqual({ keep: true });
    expect(r.changedKeys).toEqual(["plan"]);
    expect(r.templateData).not.toHaveProperty("plan");
  });

  it("deleting a missing key changes nothing", () => {
    expect(applyContactData({}, { gone: null }, "track").changedKeys).toEqual([]);
  });
});

describe("rule 3: an empty string is skipped", () => {
  it.each(ENTRIES)("%s keeps the existing value", (entry) => {
    const r = applyContactData({ name: "Ada" }, { name: "", other: "" }, entry);
    expect(r.stored).toEqual({ name: "Ada" });
    expect(r.changedKeys).toEqual([]);
    expect(r.given).toEqual({});
  });
});

describe("rule 4: one-shot values and objects", () => {
  it.each(["send", "track"] as const)("%s uses {value, persistent:false} once, never stores it", (entry) => {
    const r = applyContactData({ code: "old" }, { code: once("123456"), obj: once({ a: 1 }) }, entry);
    expect(r.stored).toEqual({ code: "old" });
    expect(r.changedKeys).toEqual([]);
    expect(r.oneShot).toEqual({ code: "123456", obj: { a: 1 } });
    expect(r.templateData).toEqual({ code: "123456", obj: { a: 1 } });
  });

  it("the management API never stores a one-shot value either", () => {
    const r = applyContactData({}, { code: once("1") }, "api");
    expect(r.stored).toEqual({});
    expect(r.oneShot).toEqual({});
  });

  it("track stores plain objects and arrays", () => {
    const r = applyContactData({}, { address: { city: "Oslo" }, tags: ["a", "b"] }, "track");
    expect(r.stored).toEqual({ address: { city: "Oslo" }, tags: ["a", "b"] });
    expect(r.changedKeys.sort()).toEqual(["address", "tags"]);
  });

  it("send does not store a plain object: it is a variable of that email only", () => {
    const r = applyContactData({}, { order: { id: 7 }, plan: "pro" }, "send");
    expect(r.stored).toEqual({ plan: "pro" });
    expect(r.templateData).toEqual({ plan: "pro", order: { id: 7 } });
  });

  it("the management API stores objects (Contact.data takes any JSON)", () => {
    expect(applyContactData({}, { address: { city: "Oslo" } }, "api").stored).toEqual({ address: { city: "Oslo" } });
  });

  it("{value, persistent: true} stores the value, under the same rules", () => {
    expect(applyContactData({ a: 1 }, { a: { value: null, persistent: true }, b: { value: 2, persistent: true } }, "track").stored).toEqual({ b: 2 });
  });

  it("an object that merely has a persistent key is a plain object", () => {
    const v = { value: 1, persistent: false, extra: true };
    expect(applyContactData({}, { v }, "track").stored).toEqual({ v });
  });
});

describe("rule 5: reserved keys are silently removed", () => {
  it.each(ENTRIES)("%s drops every reserved key in every form", (entry) => {
    const input = Object.fromEntries([...RESERVED_KEYS].map((k, i) => [k, i % 2 ? once("x") : "x"]));
    const r = applyContactData({}, { ...input, ok: 1 }, entry);
    expect(r.stored).toEqual({ ok: 1 });
    expect(r.oneShot).toEqual({});
    for (const k of RESERVED_KEYS) expect(r.templateData).not.toHaveProperty(k);
  });

  it("a reserved null does not delete anything", () => {
    expect(applyContactData({ other: 1 }, { email: null }, "api").stored).toEqual({ other: 1 });
  });
});

describe("rules combined", () => {
  it("one track call: store, delete, skip, one-shot, object, reserved", () => {
    const r = applyContactData(
      { plan: "free", old: true, name: "Ada" },
      { plan: "pro", old: null, name: "", code: once(42), profile: { age: 36 }, email: "x@y.z", id: "1" },
      "track",
    );
    expect(r.stored).toEqual({ plan: "pro", name: "Ada", profile: { age: 36 } });
    expect(r.changedKeys.sort()).toEqual(["old", "plan", "profile"]);
    expect(r.given).toEqual({ plan: "pro", profile: { age: 36 } });
    expect(r.oneShot).toEqual({ code: 42 });
    expect(r.templateData).toEqual({ plan: "pro", name: "Ada", profile: { age: 36 }, code: 42 });
  });

  it("a one-shot value shadows the stored one for that call only", () => {
    const r = applyContactData({ plan: "free" }, { plan: once("trial") }, "send");
    expect(r.stored).toEqual({ plan: "free" });
    expect(r.templateData.plan).toBe("trial");
  });

  it("no data leaves the contact as it is", () => {
    const r = applyContactData({ a: 1 }, undefined, "send");
    expect(r).toMatchObject({ stored: { a: 1 }, changedKeys: [], templateData: { a: 1 } });
  });
});

describe("limits", () => {
  const limitError = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("VALIDATION_ERROR");
      return (err as AppError).reason;
    }
    throw new Error("expected a limit error");
  };
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  const nest = (levels: number): unknown => (levels === 0 ? 1 : { n: nest(levels - 1) });

  it(`at most ${DATA_LIMITS.maxKeys} keys in one call`, () => {
    expect(applyContactData({}, keys(DATA_LIMITS.maxKeys), "api").changedKeys).toHaveLength(DATA_LIMITS.maxKeys);
    expect(limitError(() => applyContactData({}, keys(DATA_LIMITS.maxKeys + 1), "api"))).toBe("contact_data_limit");
  });

  it("at most that many keys stored on one contact", () => {
    expect(limitError(() => applyContactData(keys(DATA_LIMITS.maxKeys), { more: 1 }, "track"))).toBe("contact_data_limit");
  });

  it(`nesting at most ${DATA_LIMITS.maxDepth} levels (data itself is level 1)`, () => {
    expect(() => applyContactData({}, { a: nest(DATA_LIMITS.maxDepth - 1) } as never, "track")).not.toThrow();
    expect(limitError(() => applyContactData({}, { a: nest(DATA_LIMITS.maxDepth) } as never, "track"))).toBe("contact_data_limit");
  });

  it(`at most ${DATA_LIMITS.maxBytes} bytes serialized`, () => {
    expect(limitError(() => applyContactData({}, { big: "x".repeat(DATA_LIMITS.maxBytes) }, "api"))).toBe("contact_data_limit");
  });
});
