import type { Transition } from "./records.js";
import type { Step, StepType } from "./steps.js";

/**
 * The workflow graph rules of decisions.md §11, once: the workflows service refuses an edit that
 * breaks them (its 400 lists these messages) and the dashboard's canvas asks the same functions
 * before it sends a connection, so a person reads why an edge cannot be drawn before any request.
 * Pure and linear in the graph's size: a tenant's workflow of any size is checked on every edit.
 */

export type GraphStep = Pick<Step, "id" | "type" | "name"> & { config: object };
export type GraphEdge = Pick<Transition, "fromStepId" | "toStepId" | "branch" | "waitOutcome">;
export interface Graph {
  steps: readonly GraphStep[];
  transitions: readonly GraphEdge[];
}
/** A broken rule, with where it is (an Error object's `details[]` entry). */
export interface GraphProblem {
  path: "steps" | "transitions" | "toStepId";
  message: string;
}

/** What a step type is called where a person reads it (the canvas, a new step's default name). */
export const STEP_LABELS: Record<StepType, string> = {
  TRIGGER: "Trigger",
  SEND_EMAIL: "Send email",
  DELAY: "Delay",
  WAIT_FOR_EVENT: "Wait for event",
  CONDITION: "Condition",
  WEBHOOK: "Webhook",
  UPDATE_CONTACT: "Update contact",
  EXIT: "Exit",
};

/** Where an edge leaves its step: what the edge carries (a branch, a wait's outcome, or neither). */
export type Output = "next" | "yes" | "no" | "EVENT" | "TIMEOUT";

/** The outputs a step type has, in the order new edges take them. EXIT ends the execution: none. */
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

/** The transition's fields for an edge leaving from `output`. */
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

/**
 * Why an edge from `from` to `to` breaks a rule of the edge itself or of `from`'s outputs, given the
 * edges `from` already has (`siblings`); null when it keeps them. Loops are the caller's.
 */
function edgeProblem(from: GraphStep, to: GraphStep, edge: GraphEdge, siblings: readonly GraphEdge[], byId: ReadonlyMap<string, GraphStep>): string | null {
  if (from.id === to.id) return "A step cannot lead to itself.";
  if (to.type === "TRIGGER") return "Nothing can lead into the trigger: every execution starts there.";
  if (from.type === "EXIT") return `${quoted(from)} is an exit: an execution ends there, so it leads nowhere.`;
  if (from.type === "CONDITION") {
    if (edge.branch == null || edge.waitOutcome != null) return `A connection from the condition ${quoted(from)} must be its “yes” or its “no” branch.`;
    if (siblings.some((t) => t.branch === edge.branch)) return `The condition ${quoted(from)} already has a “${edge.branch}” branch: delete it first.`;
  } else if (from.type === "WAIT_FOR_EVENT") {
    if (edge.waitOutcome == null || edge.branch != null) return `A connection from the wait ${quoted(from)} must be its EVENT or its TIMEOUT outcome.`;
    if (edge.waitOutcome === "TIMEOUT" && !(Number((from.config as { timeout?: unknown }).timeout) > 0)) {
      return `The wait ${quoted(from)} has no timeout: give it a timeout (in seconds) before connecting its TIMEOUT outcome.`;
    }
    if (siblings.some((t) => t.waitOutcome === edge.waitOutcome)) return `The wait ${quoted(from)} already has an ${edge.waitOutcome} connection: delete it first.`;
  } else {
    if (edge.branch != null || edge.waitOutcome != null) return "Only conditions have yes/no branches and only waits have EVENT/TIMEOUT outcomes.";
    if (siblings.length > 0) {
      const next = byId.get(siblings[0]!.toStepId);
      return `${quoted(from)} already leads to ${next ? quoted(next) : "another step"}: only a condition or a wait has more than one next step.`;
    }
  }
  return null;
}

const loopMessage = (from: GraphStep, to: GraphStep) => `That connection would make a loop: ${quoted(to)} already leads back to ${quoted(from)}.`;
const foreignEnd = "Both ends of a connection must be steps of this workflow.";

/** Each step's outgoing edges, in the graph's order. */
function outgoing(transitions: readonly GraphEdge[]): Map<string, GraphEdge[]> {
  const out = new Map<string, GraphEdge[]>();
  for (const t of transitions) {
    const list = out.get(t.fromStepId);
    if (list) list.push(t);
    else out.set(t.fromStepId, [t]);
  }
  return out;
}

/** Why `edge` cannot be added to `graph`, or null when it can. */
export function connectionProblem(graph: Graph, edge: GraphEdge): string | null {
  const byId = new Map(graph.steps.map((s) => [s.id, s]));
  const from = byId.get(edge.fromStepId);
  const to = byId.get(edge.toStepId);
  if (!from || !to) return foreignEnd;
  const out = outgoing(graph.transitions);
  const problem = edgeProblem(from, to, edge, out.get(from.id) ?? [], byId);
  if (problem) return problem;
  // the new edge closes a loop when `to` already reaches `from`
  const seen = new Set<string>();
  const stack = [to.id];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === from.id) return loopMessage(from, to);
    if (seen.has(at)) continue;
    seen.add(at);
    for (const t of out.get(at) ?? []) stack.push(t.toStepId);
  }
  return null;
}

/**
 * Every problem of a whole graph: the trigger count, then each transition checked against the ones
 * before it from the same step, then the first loop among the rest, named at the edge that closes it. An edit is
 * applied in memory and refused when this is not empty.
 */
export function graphProblems(graph: Graph): GraphProblem[] {
  const byId = new Map(graph.steps.map((s) => [s.id, s]));
  const problems: GraphProblem[] = [];
  const triggers = graph.steps.filter((s) => s.type === "TRIGGER").length;
  if (triggers !== 1) problems.push({ path: "steps", message: `A workflow has exactly one trigger; this one has ${triggers}.` });
  // an edge that breaks a rule is reported once, and left out of the edges checked after it
  const kept = new Map<string, GraphEdge[]>();
  const good: GraphEdge[] = [];
  for (const t of graph.transitions) {
    const from = byId.get(t.fromStepId);
    const to = byId.get(t.toStepId);
    if (!from || !to) {
      problems.push({ path: "transitions", message: foreignEnd });
      continue;
    }
    const siblings = kept.get(from.id) ?? [];
    const problem = edgeProblem(from, to, t, siblings, byId);
    if (problem) problems.push({ path: to.type === "TRIGGER" ? "toStepId" : "transitions", message: problem });
    else {
      kept.set(from.id, [...siblings, t]);
      good.push(t);
    }
  }
  const loop = closingEdge(graph.steps, good);
  if (loop) problems.push({ path: "transitions", message: loopMessage(byId.get(loop.fromStepId)!, byId.get(loop.toStepId)!) });
  return problems;
}

/** An edge that closes a loop (a depth-first search's back edge), or null: iterative, so a long chain cannot overflow the stack. */
function closingEdge(steps: readonly GraphStep[], transitions: readonly GraphEdge[]): GraphEdge | null {
  const out = outgoing(transitions);
  const state = new Map<string, "open" | "done">();
  for (const root of steps) {
    if (state.has(root.id)) continue;
    const stack: Array<{ id: string; next: number }> = [{ id: root.id, next: 0 }];
    state.set(root.id, "open");
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const edge = out.get(top.id)?.[top.next++];
      if (!edge) {
        state.set(top.id, "done");
        stack.pop();
      } else if (state.get(edge.toStepId) === "open") {
        return edge;
      } else if (!state.has(edge.toStepId)) {
        state.set(edge.toStepId, "open");
        stack.push({ id: edge.toStepId, next: 0 });
      }
    }
  }
  return null;
}

/**
 * The fields of a new edge from `from` when a step is added after it: the first output it has free
 * (a condition's yes, then no; a wait's EVENT, then TIMEOUT).
 */
export function labelForNewEdge(from: Pick<GraphStep, "id" | "type">, transitions: readonly GraphEdge[]): Pick<Transition, "branch" | "waitOutcome"> {
  const used = new Set(transitions.filter((t) => t.fromStepId === from.id).map(outputOf));
  const outputs = outputsOf(from.type);
  return edgeFields(outputs.find((o) => !used.has(o)) ?? outputs[outputs.length - 1] ?? "next");
}

/**
 * Deleting a step with `splice`: every edge into it is redirected to its one successor, keeping its
 * label. A step with several successors (a condition, a wait) cannot be spliced: which branch should
 * inherit the callers is not knowable, so that is refused.
 */
export function spliceEdges(stepId: string, transitions: readonly GraphEdge[]): GraphEdge[] | { path: "splice"; message: string } {
  const out = transitions.filter((t) => t.fromStepId === stepId);
  if (out.length > 1) return { path: "splice", message: "a step with more than one outgoing transition cannot be spliced out" };
  const successor = out[0]?.toStepId;
  if (!successor) return [];
  return transitions
    .filter((t) => t.toStepId === stepId && t.fromStepId !== successor)
    .map((t) => ({ fromStepId: t.fromStepId, toStepId: successor, branch: t.branch, waitOutcome: t.waitOutcome }));
}
