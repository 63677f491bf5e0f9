import { describe, expect, it } from "vitest";
import { filtersFrom, filtersTo } from "./filters";

describe("the email log's filters in the address bar", () => {
  it("reads what it wrote", () => {
    const filters = { status: "BOUNCED" as const, to: "ada@", campaignId: "c_1" };
    expect(filtersFrom(filtersTo(filters))).toEqual(filters);
    expect(filtersTo({}).toString()).toBe("");
  });

  it("drops what the API would refuse instead of failing the page", () => {
    const params = new URLSearchParams({ status: "bogus", campaignId: "x".repeat(201), to: "   " });
    expect(filtersFrom(params)).toEqual({ status: undefined, campaignId: undefined, to: undefined });
    expect(filtersFrom(new URLSearchParams({ to: "a".repeat(300) })).to).toHaveLength(254);
  });
});
