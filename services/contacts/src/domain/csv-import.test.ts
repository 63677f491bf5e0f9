import { describe, expect, it } from "vitest";
import { importColumns, parseSubscribed, stageRow, type ImportColumns } from "./csv-import.js";

describe("CSV import columns", () => {
  it("finds email and subscribed in any case; every other column is data, reserved keys dropped", () => {
    expect(importColumns(["Name", " EMAIL ", "Subscribed", "id", "plan"])).toEqual({
      email: 1,
      subscribed: 2,
      data: [
        { index: 0, key: "Name" },
        { index: 4, key: "plan" },
      ],
      count: 5,
    });
  });

  it("refuses a header without email, with a column twice or a nameless one", () => {
    expect(importColumns(["name", "plan"])).toEqual({ error: "the header has no email column" });
    expect(importColumns(["email", "Email"])).toMatchObject({ error: expect.stringContaining("twice") });
    expect(importColumns(["email", ""])).toMatchObject({ error: expect.stringContaining("no name") });
    expect(importColumns(["email", ...Array.from({ length: 101 }, (_, i) => `k${i}`)])).toMatchObject({ error: expect.stringContaining("100") });
  });
});

describe("CSV import rows", () => {
  const cols = importColumns(["email", "subscribed", "plan", "city"]) as ImportColumns;

  it("stages the address trimmed, subscribed when given, and the non-empty cells as strings", () => {
    expect(stageRow([" a@x.co ", "no", "pro", ""], cols)).toEqual({ email: "a@x.co", subscribed: false, data: { plan: "pro" } });
    expect(stageRow(["a@x.co", "", "", ""], cols)).toEqual({ email: "a@x.co", subscribed: null, data: {} });
  });

  it("names what is wrong with a bad row", () => {
    expect(stageRow(["not-an-address", "", "", ""], cols)).toEqual({ error: "email: must be a valid email address" });
    expect(stageRow(["a@x.co", "maybe", "", ""], cols)).toMatchObject({ error: expect.stringContaining("subscribed") });
    expect(stageRow(["a@x.co", ""], cols)).toEqual({ error: "the row has 2 fields where the header has 4" });
    expect(stageRow(["a@x.co", "", "x".repeat(70_000), ""], cols)).toMatchObject({ error: expect.stringContaining("data") });
    expect(stageRow(["a@x.co", "", "a\u0000b", ""], cols)).toMatchObject({ error: expect.stringContaining("NUL") });
  });

  it("reads subscribed as spreadsheets write it", () => {
    expect(["TRUE", "yes", "1", "Y"].map(parseSubscribed)).toEqual([true, true, true, true]);
    expect(["false", "No", "0", "n"].map(parseSubscribed)).toEqual([false, false, false, false]);
    expect(parseSubscribed(" ")).toBeNull();
    expect(parseSubscribed("sure")).toBeUndefined();
  });
});
