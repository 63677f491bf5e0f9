import type { StepType } from "@mailroom/contracts";

export interface GraphStep {
  id: string;
  type: StepType;
  config: Record<string, unknown>;
}
export interface GraphEdge {
  id: string;
  fromStepId: string;
  toStepId: string;
  branch: "yes" | "no" | null;
  waitOutcome: "EVENT" | "TIMEOUT" | null;
}
export interface Problem {
  path: string;
  message: string;
}

const label = (e: GraphEdge) => e.branch ?? e.waitOutcome ?? "next";

/** The problems of one step's outgoing edges (decisions.md §11 graph rules). */
function outgoingProblems(step: GraphStep, out: GraphEdge[]): Problem[] {
  const problems: Problem[] = [];
  const add = (message: string) => problems.push({ path: "transitions", message: `step ${step.id} (${step.type}): ${message}` });
  const seen = new Set<string>();
  for (const e of out) {
    const l = label(e);
    if (seen.has(l)) add(`has more than one "${l}" transition`);
    seen.add(l);
  }
  if (step.type === "CONDITION") {
    if (out.some((e) => e.branch === null || e.waitOutcome !== null)) add('its transitions need branch "yes" or "no"');
  } else if (step.type === "WAIT_FOR_EVENT") {
    if (out.some((e) => e.waitOutcome === null || e.branch !== null)) add('its transitions need waitOutcome "EVENT" or "TIMEOUT"');
    if (out.some((e) => e.waitOutcome === "TIMEOUT") && !(Number(step.config.timeout) > 0)) {
      add("a TIMEOUT transition needs a timeout greater than 0");
    }
  } else {
    if (out.some((e) => e.branch !== null || e.waitOutcome !== null)) add("only CONDITION and WAIT_FOR_EVENT transitions carry a branch or waitOutcome");
    if (out.length > 1) add("has more than one outgoing transition");
    if (step.type === "EXIT" && out.length > 0) add("an EXIT step ends the execution and has no outgoing transition");
  }
  return problems;
}

/** Every graph rule over the whole graph; an edit is applied in memory and refused if this is non-empty. */
export function graphProblems(steps: GraphStep[], edges: GraphEdge[]): Problem[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const problems: Problem[] = [];
  const triggers = steps.filter((s) => s.type === "TRIGGER");
  if (triggers.length !== 1) problems.push({ path: "steps", message: "a workflow has exactly one TRIGGER step" });
  for (const e of edges) {
    const to = byId.get(e.toStepId);
    if (!byId.has(e.fromStepId) || !to) problems.push({ path: "transitions", message: `transition ${e.id} names a step of another workflow` });
    else if (to.type === "TRIGGER") problems.push({ path: "toStepId", message: "no transition may lead into the TRIGGER step" });
  }
  for (const step of steps) problems.push(...outgoingProblems(step, edges.filter((e) => e.fromStepId === step.id)));
  if (hasCycle(steps, edges)) problems.push({ path: "transitions", message: "transitions may not form a cycle" });
  return problems;
}

function hasCycle(steps: GraphStep[], edges: GraphEdge[]): boolean {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.fromStepId, [...(next.get(e.fromStepId) ?? []), e.toStepId]);
  const state = new Map<string, "visiting" | "done">();
  const visit = (id: string): boolean => {
    const s = state.get(id);
    if (s === "visiting") return true;
    if (s === "done") return false;
    state.set(id, "visiting");
    const cyclic = (next.get(id) ?? []).some(visit);
    state.set(id, "done");
    return cyclic;
  };
  return steps.some((s) => visit(s.id));
}

/**
 * The edge a step that finished running follows: by branch (CONDITION), or its only one. A wait
 * (WAIT_FOR_EVENT, DELAY) ends in the statement that resumes or times it out, which picks its edge
 * itself, in SQL (`edgeAfter` in src/db/waits-repo.ts says why): this function has no wait case.
 */
export function nextStepId(edges: GraphEdge[], fromStepId: string, outcome: { branch?: "yes" | "no" } = {}): string | null {
  const edge = edges.find((e) => e.fromStepId === fromStepId && (outcome.branch === undefined || e.branch === outcome.branch));
  return edge?.toStepId ?? null;
}

/**
 * The label a new edge from `from` takes when a step is added with `after`: the first free branch of
 * a CONDITION (yes, then no), the first free outcome of a WAIT_FOR_EVENT (EVENT, then TIMEOUT).
 */
export function labelForNewEdge(from: GraphStep, edges: GraphEdge[]): Pick<GraphEdge, "branch" | "waitOutcome"> {
  const used = new Set(edges.filter((e) => e.fromStepId === from.id).map(label));
  if (from.type === "CONDITION") return { branch: used.has("yes") ? "no" : "yes", waitOutcome: null };
  if (from.type === "WAIT_FOR_EVENT") return { branch: null, waitOutcome: used.has("EVENT") ? "TIMEOUT" : "EVENT" };
  return { branch: null, waitOutcome: null };
}

/**
 * `DELETE …/steps/{id}?splice=true`: every edge into the step is redirected to the step's one
 * successor, keeping its label. A step with several successors (CONDITION, WAIT_FOR_EVENT) cannot be
 * spliced: which branch should inherit the callers is not knowable, so that is refused.
 */
export function spliceEdges(stepId: string, edges: GraphEdge[]): Array<Omit<GraphEdge, "id">> | Problem {
  const out = edges.filter((e) => e.fromStepId === stepId);
  if (out.length > 1) return { path: "splice", message: "a step with more than one outgoing transition cannot be spliced out" };
  const successor = out[0]?.toStepId;
  if (!successor) return [];
  return edges
    .filter((e) => e.toStepId === stepId && e.fromStepId !== successor)
    .map((e) => ({ fromStepId: e.fromStepId, toStepId: successor, branch: e.branch, waitOutcome: e.waitOutcome }));
}
