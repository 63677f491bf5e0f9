import type { Step, StepRun, StepType, Transition } from "@mailroom/contracts";

/**
 * The graph rules of decisions.md §11, checked in the browser before a connection is sent, so a
 * person reads why an edge cannot be drawn instead of a bare 400. The service checks them again; these
 * only have to agree with it. Pure: unit-tested in graph.test.ts.
 */

export type GraphStep = Pick<Step, "id" | "type" | "name" | "config">;
export type GraphEdge = Pick<Transition, "fromStepId" | "toStepId" | "branch" | "waitOutcome">;
export interface Graph {
  steps: readonly GraphStep[];
  transitions: readonly GraphEdge[];
}

/** A source handle of a step on the canvas: what an edge drawn from it carries. */
export type Output = "next" | "yes" | "no" | "EVENT" | "TIMEOUT";

/** The outputs a step type draws. EXIT ends the execution, so it has none. */
export function outputsOf(type: StepType): Output[] {
  switch (type) {
    case "CONDITION":
      return ["yes", "no"];
    case "WAIT_FOR_EVENT":
      return ["EVENT", "TIMEOUT"];
    case "EXIT":
      return [];
    default:
      return ["next"];
  }
}

/** The transition's fields for an edge drawn from `output`. */
export function edgeFields(output: Output): Pick<Transition, "branch" | "waitOutcome"> {
  if (output === "yes" || output === "no") return { branch: output, waitOutcome: null };
  if (output === "EVENT" || output === "TIMEOUT") return { branch: null, waitOutcome: output };
  return { branch: null, waitOutcome: null };
}

/** The output an edge leaves from (the inverse of edgeFields). */
export function outputOf(edge: Pick<Transition, "branch" | "waitOutcome">): Output {
  return edge.branch ?? edge.waitOutcome ?? "next";
}

const quoted = (s: GraphStep) => `“${s.name}”`;

/** Whether `to` already leads, through any number of edges, to `from`. */
function reaches(transitions: readonly GraphEdge[], from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === to) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const t of transitions) if (t.fromStepId === at) stack.push(t.toStepId);
  }
  return false;
}

/** Why `edge` cannot be added to `graph`, or null when it can. */
export function connectionProblem(graph: Graph, edge: GraphEdge): string | null {
  const from = graph.steps.find((s) => s.id === edge.fromStepId);
  const to = graph.steps.find((s) => s.id === edge.toStepId);
  if (!from || !to) return "Both ends of a connection must be steps of this workflow.";
  if (from.id === to.id) return "A step cannot lead to itself.";
  if (to.type === "TRIGGER") return "Nothing can lead into the trigger: every execution starts there.";
  if (from.type === "EXIT") return `${quoted(from)} is an exit: an execution ends there, so it leads nowhere.`;
  const out = graph.transitions.filter((t) => t.fromStepId === from.id);

  if (from.type === "CONDITION") {
    if (edge.branch == null || edge.waitOutcome != null) return `A connection from the condition ${quoted(from)} must be its “yes” or its “no” branch.`;
    if (out.some((t) => t.branch === edge.branch)) return `The condition ${quoted(from)} already has a “${edge.branch}” branch: delete it first.`;
  } else if (from.type === "WAIT_FOR_EVENT") {
    if (edge.waitOutcome == null || edge.branch != null) return `A connection from the wait ${quoted(from)} must be its EVENT or its TIMEOUT outcome.`;
    const timeout = (from.config as { timeout?: number }).timeout ?? 0;
    if (edge.waitOutcome === "TIMEOUT" && !(timeout > 0)) {
      return `The wait ${quoted(from)} has no timeout: give it a timeout (in seconds) before connecting its TIMEOUT outcome.`;
    }
    if (out.some((t) => t.waitOutcome === edge.waitOutcome)) return `The wait ${quoted(from)} already has an ${edge.waitOutcome} connection: delete it first.`;
  } else {
    if (edge.branch != null || edge.waitOutcome != null) return `Only conditions have yes/no branches and only waits have EVENT/TIMEOUT outcomes.`;
    if (out.length > 0) {
      const next = graph.steps.find((s) => s.id === out[0]!.toStepId);
      return `${quoted(from)} already leads to ${next ? quoted(next) : "another step"}: only a condition or a wait has more than one next step.`;
    }
  }
  if (reaches(graph.transitions, to.id, from.id)) return `That connection would make a loop: ${quoted(to)} already leads back to ${quoted(from)}.`;
  return null;
}

/**
 * Every problem of a whole graph: the trigger count, then each transition checked as if added in
 * order (so a cycle is reported at the edge that closes it).
 */
export function graphProblems(graph: Graph): string[] {
  const problems: string[] = [];
  const triggers = graph.steps.filter((s) => s.type === "TRIGGER").length;
  if (triggers !== 1) problems.push(`A workflow has exactly one trigger; this one has ${triggers}.`);
  const added: GraphEdge[] = [];
  for (const t of graph.transitions) {
    const problem = connectionProblem({ steps: graph.steps, transitions: added }, t);
    if (problem) problems.push(problem);
    else added.push(t);
  }
  return problems;
}

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
