import { describe, expect, it } from "vitest";
import { dataPatch, rowErrors, rowsOf } from "./data-rows";

describe("the contact data editor's rows", () => {
  const before = { plan: "pro", seats: 3, code: "42", tags: ["a"] };

  it("sends nothing when nothing changed, keeping a numeric-looking string a string", () => {
    expect(dataPatch(before, rowsOf(before))).toEqual({});
  });

  it("parses edited values as JSON when they are JSON, else keeps the text", () => {
    const rows = rowsOf(before).map((r) => (r.key === "seats" ? { ...r, value: "5" } : r.key === "plan" ? { ...r, value: "team plan" } : r));
    expect(dataPatch(before, rows)).toEqual({ seats: 5, plan: "team plan" });
    expect(dataPatch(before, [...rowsOf(before), { id: "n", key: "vip", value: "true" }])).toEqual({ vip: true });
    expect(dataPatch({}, [{ id: "n", key: "o", value: '{"a":{"b":null}}' }])).toEqual({ o: { a: { b: null } } });
  });

  it("deletes removed keys with null and a renamed key under its old name", () => {
    const rows = rowsOf(before).filter((r) => r.key !== "tags").map((r) => (r.key === "plan" ? { ...r, key: "tier" } : r));
    expect(dataPatch(before, rows)).toEqual({ tags: null, plan: null, tier: "pro" });
  });

  it("refuses empty, overlong and duplicate keys and empty values at their row", () => {
    const errors = rowErrors([
      { id: "1", key: "", value: "x" },
      { id: "2", key: "k".repeat(201), value: "x" },
      { id: "3", key: "a", value: "x" },
      { id: "4", key: "a", value: "" },
    ]);
    expect(Object.keys(errors).sort()).toEqual(["rows.0.key", "rows.1.key", "rows.3.key", "rows.3.value"]);
  });
});
