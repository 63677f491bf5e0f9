import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
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
