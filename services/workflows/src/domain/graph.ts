import type { GraphEdge } from "@mailroom/contracts";

// The graph rules themselves (what an edit may make of a workflow) are the contracts'
// (`graphProblems`, `labelForNewEdge`, `spliceEdges`), shared with the dashboard's canvas; this is
// how the engine walks a graph that keeps them.

/**
 * The edge a step that finished running follows: by branch (CONDITION), or its only one. A wait
 * (WAIT_FOR_EVENT, DELAY) ends in the statement that resumes or times it out, which picks its edge
 * itself, in SQL (`edgeAfter` in src/db/waits-repo.ts says why): this function has no wait case.
 */
export function nextStepId(edges: readonly GraphEdge[], fromStepId: string, outcome: { branch?: "yes" | "no" } = {}): string | null {
  const edge = edges.find((e) => e.fromStepId === fromStepId && (outcome.branch === undefined || e.branch === outcome.branch));
  return edge?.toStepId ?? null;
}
