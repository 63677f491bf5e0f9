import type { GraphEdge } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { executionPath, newStepPosition } from "./graph";

const edge = (fromStepId: string, toStepId: string, fields: Partial<GraphEdge> = {}): GraphEdge => ({ fromStepId, toStepId, branch: null, waitOutcome: null, ...fields });

describe("the canvas's layout", () => {
  it("places a new step under the selected one, beside its other children", () => {
    const placed = [{ id: "a", position: { x: 0, y: 0 } }, { id: "b", position: { x: 0, y: 140 } }];
    expect(newStepPosition(placed, [], null)).toEqual({ x: 0, y: 280 });
    expect(newStepPosition(placed, [edge("a", "b")], "a")).toEqual({ x: 260, y: 140 });
    expect(newStepPosition([], [], null)).toEqual({ x: 0, y: 0 });
  });

  it("draws an execution's path from its step runs in order", () => {
    const transitions = [{ id: "t1", ...edge("start", "check") }, { id: "t2", ...edge("check", "bye", { branch: "no" }) }, { id: "t3", ...edge("check", "wait", { branch: "yes" }) }];
    const path = executionPath([{ stepId: "start", status: "COMPLETED" }, { stepId: "check", status: "COMPLETED" }, { stepId: "bye", status: "COMPLETED" }], transitions);
    expect([...path.edges]).toEqual(["t1", "t2"]);
    expect(path.steps.get("bye")).toBe("COMPLETED");
    expect(path.steps.has("wait")).toBe(false);
  });
});
