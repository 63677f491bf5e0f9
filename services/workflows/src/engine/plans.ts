import type { GraphEdge } from "@mailroom/contracts";
import { BoundedMap, iso, type Sql } from "@mailroom/kit";
import type { StepRow, WorkflowRow } from "../db/rows.js";
import { type Graph, graphEdges, workflowsRepo } from "../db/workflows-repo.js";

/** What a run needs of its workflow: the row, the graph, and which steps need the contact. */
export interface Plan {
  workflow: WorkflowRow;
  graph: Graph;
  edges: GraphEdge[];
  /** True when a step reachable from `stepId` before the next wait reads the contact. */
  needsContact(stepId: string): boolean;
}

/** Steps that never read the contact; every other type does. */
const CONTACT_FREE = new Set<StepRow["type"]>(["TRIGGER", "DELAY", "WAIT_FOR_EVENT", "EXIT"]);
/** Steps that end a run: their successors run later, with a contact fetched then. */
const WAITS = new Set<StepRow["type"]>(["DELAY", "WAIT_FOR_EVENT"]);
const MAX_PLANS = 1000;

function planOf(workflow: WorkflowRow, graph: Graph): Plan {
  const edges = graphEdges(graph);
  const byId = new Map(graph.steps.map((s) => [s.id, s]));
  const memo = new Map<string, boolean>();
  const needs = (id: string): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    memo.set(id, false); // the graph has no cycles; this only guards against a corrupt one
    const step = byId.get(id);
    const answer =
      !!step && (!CONTACT_FREE.has(step.type) || (!WAITS.has(step.type) && edges.some((e) => e.fromStepId === id && needs(e.toStepId))));
    memo.set(id, answer);
    return answer;
  };
  return { workflow, graph, edges, needsContact: needs };
}

/**
 * Workflows and their graphs by id, valid for one `updated_at` (every edit, structural or of a
 * step's config, bumps it, and each claim reads the current one), so a run starts without reading
 * the workflow again unless it changed. Concurrent runs of one workflow share one load.
 */
export class Plans {
  private readonly cache = new BoundedMap<string, { version: string; plan: Promise<Plan | null> }>(MAX_PLANS);

  constructor(private readonly sql: Sql) {}

  get(projectId: string, workflowId: string, version: Date | null): Promise<Plan | null> {
    const key = version === null ? null : iso(version);
    const hit = this.cache.get(workflowId);
    if (hit && key !== null && hit.version === key) return hit.plan;
    const plan = this.load(projectId, workflowId);
    if (key !== null) {
      this.cache.delete(workflowId);
      this.cache.set(workflowId, { version: key, plan });
      // a failed load is not kept
      plan.catch(() => this.cache.get(workflowId)?.plan === plan && this.cache.delete(workflowId));
    }
    return plan;
  }

  private async load(projectId: string, workflowId: string): Promise<Plan | null> {
    const [workflow, graph] = await Promise.all([workflowsRepo.get(this.sql, projectId, workflowId), workflowsRepo.graph(this.sql, workflowId)]);
    return workflow ? planOf(workflow, graph) : null;
  }
}
