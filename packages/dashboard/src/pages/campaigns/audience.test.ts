import { FilterExpression } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { recipientFilter } from "./audience";

const S = { field: "subscribed", operator: "equals", value: true };
const pro = { field: "data.plan", operator: "equals", value: "pro" };
const opened = { field: "email.opened", operator: "triggered" };
const TOPIC = "0197a000-0000-7000-8000-0000000000aa";
const T = { field: `topic.${TOPIC}`, operator: "equals", value: true };

describe("recipientFilter", () => {
  it("ALL counts the subscribed contacts", () => {
    expect(recipientFilter({ audienceType: "ALL", segmentId: null, audienceFilter: null, topicId: null })).toEqual({ logic: "AND", groups: [{ filters: [S] }] });
  });

  it("SEGMENT counts the segment's subscribed members, nothing without a segment", () => {
    expect(recipientFilter({ audienceType: "SEGMENT", segmentId: null, audienceFilter: null, topicId: null })).toBeNull();
    const f = recipientFilter({ audienceType: "SEGMENT", segmentId: "0197a000-0000-7000-8000-000000000000", audienceFilter: null, topicId: null });
    expect(f).toEqual({ logic: "AND", groups: [{ filters: [S, { field: "segment.0197a000-0000-7000-8000-000000000000", operator: "memberOfSegment" }] }] });
    expect(FilterExpression.safeParse(f).success).toBe(true);
  });

  it("FILTERED ANDs subscribed into an AND filter and into each group of an OR filter", () => {
    expect(recipientFilter({ audienceType: "FILTERED", segmentId: null, audienceFilter: { logic: "AND", groups: [{ filters: [pro] }] } as never, topicId: null })).toEqual({
      logic: "AND",
      groups: [{ filters: [pro] }, { filters: [S] }],
    });
    expect(recipientFilter({ audienceType: "FILTERED", segmentId: null, audienceFilter: { logic: "OR", groups: [{ filters: [pro] }, { filters: [opened] }] } as never, topicId: null })).toEqual({
      logic: "OR",
      groups: [{ filters: [pro, S] }, { filters: [opened, S] }],
    });
  });

  it("keeps a filter nested to the deepest level valid", () => {
    let deep: FilterExpression = { logic: "OR", groups: [{ filters: [pro] }] } as FilterExpression;
    for (let i = 0; i < 4; i++) deep = { logic: "OR", groups: [{ filters: [], conditions: deep }] } as FilterExpression;
    expect(FilterExpression.safeParse(deep).success).toBe(true);
    expect(FilterExpression.safeParse(recipientFilter({ audienceType: "FILTERED", segmentId: null, audienceFilter: deep, topicId: TOPIC })).success).toBe(true);
  });

  it("a topic campaign counts only the contacts opted into its topic, whatever the audience", () => {
    const all = recipientFilter({ audienceType: "ALL", segmentId: null, audienceFilter: null, topicId: TOPIC });
    expect(all).toEqual({ logic: "AND", groups: [{ filters: [S, T] }] });
    expect(FilterExpression.safeParse(all).success).toBe(true);
    const segment = "0197a000-0000-7000-8000-000000000000";
    expect(recipientFilter({ audienceType: "SEGMENT", segmentId: segment, audienceFilter: null, topicId: TOPIC })).toEqual({
      logic: "AND",
      groups: [{ filters: [S, T, { field: `segment.${segment}`, operator: "memberOfSegment" }] }],
    });
    expect(recipientFilter({ audienceType: "SEGMENT", segmentId: null, audienceFilter: null, topicId: TOPIC })).toBeNull();
    expect(recipientFilter({ audienceType: "FILTERED", segmentId: null, audienceFilter: { logic: "AND", groups: [{ filters: [pro] }] } as never, topicId: TOPIC })).toEqual({
      logic: "AND",
      groups: [{ filters: [pro] }, { filters: [S, T] }],
    });
    const or = recipientFilter({ audienceType: "FILTERED", segmentId: null, audienceFilter: { logic: "OR", groups: [{ filters: [pro] }, { filters: [opened] }] } as never, topicId: TOPIC });
    expect(or).toEqual({ logic: "OR", groups: [{ filters: [pro, S, T] }, { filters: [opened, S, T] }] });
    expect(FilterExpression.safeParse(or).success).toBe(true);
  });
});
