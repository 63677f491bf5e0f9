import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import type { ContactData } from "@mailroom/contracts";
import { csvField, exportHeader, exportLine } from "./csv-export.js";

describe("CSV export", () => {
  it("quotes only fields that need it", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
  });

  it("writes the fixed columns, then one per data key, and reads back as it was written", () => {
    const keys = ["city", "score", "subscribed", "tags"];
    const csv =
      exportHeader(keys) +
      exportLine({ email: "a@x.co", subscribed: true, created_at: new Date("2026-01-02T03:04:05.000Z"), data: { city: "Oslo, NO", score: 3, tags: ["a"] } }, keys);
    expect(parse(csv)).toEqual([
      ["email", "subscribed", "createdAt", "city", "score", "data.subscribed", "tags"],
      ["a@x.co", "true", "2026-01-02T03:04:05.000Z", "Oslo, NO", "3", "", '["a"]'],
    ]);
  });
});

describe("CSV export of hostile data", () => {
  const line = (data: ContactData, keys = Object.keys(data)): string[] =>
    (parse(exportLine({ email: "a@x.co", subscribed: true, created_at: new Date(0), data }, keys)) as string[][])[0]!.slice(3);

  it("makes every cell a spreadsheet would run a formula from plain text", () => {
    const hostile = ['=HYPERLINK("https://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tx", "\r=1+1"];
    expect(line(Object.fromEntries(hostile.map((v, i) => [`k${i}`, v])))).toEqual(hostile.map((v) => `'${v}`));
  });

  it("leaves numbers, negative ones included, and ordinary text as they are", () => {
    const data = { a: "-12.5", b: -3, c: "+4", d: "1e-3", e: "Ada", f: "a=b", g: "", h: { n: -1 } };
    expect(line(data)).toEqual(["-12.5", "-3", "+4", "1e-3", "Ada", "a=b", "", '{"n":-1}']);
  });

  it("neutralises a header (a data key) the same way", () => {
    const [header] = parse(exportHeader(["=cmd", "-5", "plan"])) as string[][];
    expect(header!.slice(3)).toEqual(["'=cmd", "-5", "plan"]);
  });
});
