import type { GraphEdge } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { nextStepId } from "./graph.js";

const edge = (from: string, to: string, branch: GraphEdge["branch"] = null): GraphEdge => ({ fromStepId: from, toStepId: to, branch, waitOutcome: null });

describe("nextStepId", () => {
  it("follows a condition's branch, a plain step's one edge, and ends where there is none", () => {
    const edges = [edge("t", "c"), edge("c", "w", "yes"), edge("c", "x", "no")];
    expect(nextStepId(edges, "c", { branch: "no" })).toBe("x");
    expect(nextStepId(edges, "c", { branch: "yes" })).toBe("w");
    expect(nextStepId(edges, "t")).toBe("c");
    expect(nextStepId(edges, "x")).toBeNull();
  });
});
