import { describe, expect, it } from "vitest";
import type { FilterExpression } from "@mailroom/contracts";
import { affectedBy } from "@mailroom/filters";
import { SegmentGraph, timeSensitivity, touches, type SegmentDef } from "./segment-graph.js";

type F = FilterExpression["groups"][number]["filters"][number];
const all = (...filters: F[]): FilterExpression => ({ logic: "AND", groups: [{ filters }] });
const seg = (id: string, filters: FilterExpression, trackMembership = true): SegmentDef => ({ id, name: id, slug: id, filters, trackMembership });
const member = (id: string): F => ({ field: `segment.${id}`, operator: "memberOfSegment" });

describe("touches", () => {
  const reads = affectedBy(all({ field: "data.address.city", operator: "exists" }, { field: "event.buy", operator: "triggered" }, { field: "email.opened", operator: "triggered" }, { field: "email", operator: "contains", value: "x" }));
  it.each([
    ["data.address", true],
    ["data.address.city", true],
    ["data.address.city.zip", true],
    ["data.addresses", false],
    ["event.buy", true],
    ["event.sell", false],
    ["email.opened", true],
    ["email.clicked", false],
    ["email", true],
    ["subscribed", false],
  ])("%s → %s", (changed, expected) => expect(touches(reads, changed)).toBe(expected));
});

describe("SegmentGraph", () => {
  const graph = new SegmentGraph([
    seg("top", all(member("mid"), { field: "subscribed", operator: "equals", value: true })),
    seg("mid", all(member("untracked"))),
    seg("untracked", all({ field: "data.plan", operator: "equals", value: "pro" }), false),
    seg("other", all({ field: "data.age", operator: "greaterThan", value: 3 })),
  ]);

  it("orders tracked segments after the tracked segments they read", () => {
    const order = graph.tracked().map((s) => s.id);
    expect(order.indexOf("mid")).toBeLessThan(order.indexOf("top"));
    expect(order).not.toContain("untracked");
  });

  it("a change affects the segments reading it, through untracked ones, plus their tracked dependents", () => {
    expect(graph.affected(["data.plan"]).map((s) => s.id)).toEqual(["mid", "top"]);
    expect(graph.affected(["subscribed"]).map((s) => s.id)).toEqual(["top"]);
    expect(graph.affected(["data.age", "updatedAt"]).map((s) => s.id)).toEqual(["other"]);
    expect(graph.affected(["data.unrelated"])).toEqual([]);
    expect(graph.affected("all")).toHaveLength(3);
  });

  it("knows what to re-record when a definition changes, and who refers to a segment", () => {
    expect(graph.definedThrough("untracked").map((s) => s.id)).toEqual(["mid", "top"]);
    expect(graph.definedThrough("other").map((s) => s.id)).toEqual(["other"]);
    expect(graph.withDependents(["mid"]).map((s) => s.id)).toEqual(["mid", "top"]);
    expect(graph.referrers("untracked").map((s) => s.id)).toEqual(["mid"]);
  });
});

describe("timeSensitivity", () => {
  const segments = new SegmentGraph([
    seg("u", all({ field: "createdAt", operator: "olderThan", value: 2, unit: "days" }), false),
    seg("t", all({ field: "data.at", operator: "within", value: 1, unit: "hours" })),
  ]).map;

  it("is the window of every relative-time filter, through untracked segments only", () => {
    const expr = all(
      { field: "event.buy", operator: "notTriggeredWithin", value: 3, unit: "days" },
      { field: "data.plan", operator: "equals", value: "pro" },
      member("u"),
      member("t"),
    );
    expect(timeSensitivity(expr, segments)).toEqual({
      near: {
        logic: "OR",
        groups: [
          { filters: [{ field: "event.buy", operator: "triggeredWithin", value: 3, unit: "days" }] },
          { filters: [{ field: "createdAt", operator: "within", value: 2, unit: "days" }] },
        ],
      },
    });
    expect(timeSensitivity(all({ field: "subscribed", operator: "equals", value: true }), segments)).toBeNull();
  });

  it("without untracked segments, also the expression with time set to true and to false", () => {
    const plan: F = { field: "data.plan", operator: "equals", value: "pro" };
    const r = timeSensitivity(all(plan, { field: "event.buy", operator: "triggeredWithin", value: 3, unit: "days" }, member("t")), segments);
    expect(r?.ifTrue).toEqual(all(plan, { field: "email", operator: "exists" }, member("t")));
    expect(r?.ifFalse).toEqual(all(plan, { field: "email", operator: "notExists" }, member("t")));
  });
});
