import type { GraphEdge, Step, StepRun } from "@mailroom/contracts";

// The graph rules (which connections a step may have) are the contracts' (`connectionProblem`,
// `outputsOf`, …), the same functions the workflows service checks every edit with. What is here
// is the canvas's own: where a new step goes, and how an execution's path is drawn.

/** Where a new step goes: under the selected step (beside its other children), else under the lowest step. */
export function newStepPosition(steps: readonly Pick<Step, "id" | "position">[], transitions: readonly GraphEdge[], selectedId: string | null) {
  const selected = steps.find((s) => s.id === selectedId);
  if (selected) {
    const children = transitions.filter((t) => t.fromStepId === selected.id).length;
    return { x: selected.position.x + children * 260, y: selected.position.y + 140 };
  }
  const lowest = steps.reduce<Pick<Step, "position"> | null>((low, s) => (!low || s.position.y > low.position.y ? s : low), null);
  return lowest ? { x: lowest.position.x, y: lowest.position.y + 140 } : { x: 0, y: 0 };
}

/** The path an execution took: the steps it ran (last run of each) and the transitions between consecutive runs. */
export function executionPath(runs: readonly Pick<StepRun, "stepId" | "status">[], transitions: readonly (GraphEdge & { id: string })[]) {
  const steps = new Map<string, StepRun["status"]>();
  for (const r of runs) steps.set(r.stepId, r.status);
  const edges = new Set<string>();
  for (let i = 1; i < runs.length; i++) {
    const t = transitions.find((e) => e.fromStepId === runs[i - 1]!.stepId && e.toStepId === runs[i]!.stepId);
    if (t) edges.add(t.id);
  }
  return { steps, edges };
}
