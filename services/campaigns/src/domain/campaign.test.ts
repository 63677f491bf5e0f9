import { describe, expect, it } from "vitest";
import { AppError, type FilterExpression } from "@mailroom/contracts";
import { assertEditable, assertSendable, mergeAudience, scheduleTime } from "./campaign.js";

const filter = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] } as FilterExpression;
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return null;
};

describe("mergeAudience", () => {
  it("keeps only the field the type uses", () => {
    expect(mergeAudience(null, { audienceType: "ALL", segmentId: "s", audienceFilter: filter })).toEqual({ type: "ALL", segmentId: null, filter: null, topicId: null });
    expect(mergeAudience({ type: "SEGMENT", segmentId: "s", filter: null, topicId: null }, { audienceType: "FILTERED", audienceFilter: filter })).toEqual({
      type: "FILTERED",
      segmentId: null,
      filter,
      topicId: null,
    });
  });

  it("keeps the stored topic unless the edit names one (null clears it)", () => {
    const stored = { type: "ALL" as const, segmentId: null, filter: null, topicId: "t1" };
    expect(mergeAudience(stored, { name: "x" } as never).topicId).toBe("t1");
    expect(mergeAudience(stored, { topicId: null }).topicId).toBeNull();
    expect(mergeAudience(null, { audienceType: "ALL", topicId: "t2" }).topicId).toBe("t2");
  });

  it("keeps the stored field when the edit does not name it, and requires it for its type", () => {
    expect(mergeAudience({ type: "SEGMENT", segmentId: "s", filter: null, topicId: null }, { name: "x" } as never).segmentId).toBe("s");
    expect(code(() => mergeAudience({ type: "ALL", segmentId: null, filter: null, topicId: null }, { audienceType: "SEGMENT" }))).toBe("VALIDATION_ERROR");
    expect(code(() => mergeAudience({ type: "FILTERED", segmentId: null, filter, topicId: null }, { audienceFilter: null }))).toBe("VALIDATION_ERROR");
  });
});

describe("state rules", () => {
  it("edits DRAFTs only and sends DRAFT or SCHEDULED only", () => {
    expect(code(() => assertEditable("DRAFT"))).toBeNull();
    for (const s of ["SCHEDULED", "SENDING", "SENT"] as const) expect(code(() => assertEditable(s))).toBe("INVALID_STATE");
    expect(code(() => assertSendable("SCHEDULED"))).toBeNull();
    for (const s of ["SENDING", "SENT"] as const) expect(code(() => assertSendable(s))).toBe("INVALID_STATE");
  });

  it("schedules in the future only", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    expect(scheduleTime(undefined, now)).toBeNull();
    expect(scheduleTime(null, now)).toBeNull();
    expect(scheduleTime("2030-01-01T00:00:01Z", now)?.toISOString()).toBe("2030-01-01T00:00:01.000Z");
    expect(code(() => scheduleTime("2030-01-01T00:00:00Z", now))).toBe("VALIDATION_ERROR");
  });
});
