import { describe, expect, it } from "vitest";
import { expressionSummary, stepSummary } from "./labels";

const f = (value: string) => ({ field: "event.plan", operator: "equals" as const, value });

describe("a CONDITION's summary on its node", () => {
  it("counts the filters of one group, and names how several groups are joined", () => {
    expect(expressionSummary({ logic: "AND", groups: [{ filters: [f("pro")] }] })).toBe("1 filter");
    expect(expressionSummary({ logic: "AND", groups: [{ filters: [f("pro"), f("team")] }] })).toBe("all of 2 filters");
    expect(expressionSummary({ logic: "AND", groups: [{ filters: [f("pro")], conditions: { logic: "OR", groups: [{ filters: [f("x")] }] } }] })).toBe(
      "1 filter and nested conditions",
    );
    expect(expressionSummary({ logic: "OR", groups: [{ filters: [f("pro")] }, { filters: [f("team")] }] })).toBe("any of 2 groups");
    expect(expressionSummary({ logic: "AND", groups: [{ filters: [f("pro")] }, { filters: [f("team")] }] })).toBe("all of 2 groups");
  });

  it("shows the one-filter short form as written", () => {
    expect(stepSummary({ type: "CONDITION", config: f("pro") })).toBe('event.plan equals "pro"');
  });
});
