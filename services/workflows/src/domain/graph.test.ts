import { describe, expect, it } from "vitest";
import { type GraphEdge, type GraphStep, graphProblems, labelForNewEdge, nextStepId, spliceEdges } from "./graph.js";

const step = (id: string, type: GraphStep["type"], config: Record<string, unknown> = {}): GraphStep => ({ id, type, config });
const edge = (id: string, from: string, to: string, extra: Partial<GraphEdge> = {}): GraphEdge => ({
  id,
  fromStepId: from,
  toStepId: to,
  branch: null,
  waitOutcome: null,
  ...extra,
});

const steps = [step("t", "TRIGGER"), step("c", "CONDITION"), step("w", "WAIT_FOR_EVENT", { eventName: "x", timeout: 10 }), step("d", "DELAY"), step("x", "EXIT")];

describe("graph rules", () => {
  it("accepts a valid graph", () => {
    const edges = [edge("1", "t", "c"), edge("2", "c", "w", { branch: "yes" }), edge("3", "c", "x", { branch: "no" }), edge("4", "w", "d", { waitOutcome: "EVENT" }), edge("5", "w", "x", { waitOutcome: "TIMEOUT" })];
    expect(graphProblems(steps, edges)).toEqual([]);
    expect(nextStepId(edges, "c", { branch: "no" })).toBe("x");
    expect(nextStepId(edges, "c", { branch: "yes" })).toBe("w");
    expect(nextStepId(edges, "t")).toBe("c");
    expect(nextStepId(edges, "d")).toBeNull();
  });

  it.each([
    ["an edge into the trigger", [edge("1", "d", "t")]],
    ["two edges from a plain step", [edge("1", "d", "c"), edge("2", "d", "x")]],
    ["a CONDITION edge without branch", [edge("1", "c", "x")]],
    ["two yes edges", [edge("1", "c", "x", { branch: "yes" }), edge("2", "c", "d", { branch: "yes" })]],
    ["a wait edge without outcome", [edge("1", "w", "x")]],
    ["a branch on a plain step", [edge("1", "d", "x", { branch: "yes" })]],
    ["an edge out of EXIT", [edge("1", "x", "d")]],
    ["a cycle", [edge("1", "d", "c", { branch: null }), edge("2", "c", "d", { branch: "yes" })]],
  ])("refuses %s", (_, edges) => {
    expect(graphProblems(steps, edges).length).toBeGreaterThan(0);
  });

  it("refuses a TIMEOUT edge when the wait has no timeout", () => {
    const noTimeout = steps.map((s) => (s.id === "w" ? step("w", "WAIT_FOR_EVENT", { eventName: "x", timeout: 0 }) : s));
    expect(graphProblems(noTimeout, [edge("1", "w", "x", { waitOutcome: "TIMEOUT" })]).length).toBe(1);
  });

  it("labels new edges and splices", () => {
    expect(labelForNewEdge(steps[1]!, [edge("1", "c", "x", { branch: "yes" })])).toEqual({ branch: "no", waitOutcome: null });
    expect(labelForNewEdge(steps[2]!, [])).toEqual({ branch: null, waitOutcome: "EVENT" });
    const edges = [edge("1", "c", "d", { branch: "yes" }), edge("2", "d", "x")];
    expect(spliceEdges("d", edges)).toEqual([{ fromStepId: "c", toStepId: "x", branch: "yes", waitOutcome: null }]);
    expect(spliceEdges("c", [edge("1", "c", "d", { branch: "yes" }), edge("2", "c", "x", { branch: "no" })])).toHaveProperty("message");
  });
});
