import { describe, expect, it } from "vitest";
import { laneOf } from "./lanes.js";

describe("laneOf", () => {
  it("puts a campaign's recipients in the bulk lane", () => {
    expect(laneOf({ campaignId: "0190a3c2-0000-7000-8000-000000000001" })).toBe("bulk");
  });

  it("puts mail without a campaign (sends, workflow steps, campaign test copies) in the transactional lane", () => {
    expect(laneOf({ campaignId: null })).toBe("transactional");
    expect(laneOf({ campaignId: "" })).toBe("transactional");
  });
});
