import { type Logger, newId, type Sql } from "@mailroom/kit";
import { executionsRepo } from "../db/executions-repo.js";
import type { ExecutionRow, WorkflowRow } from "../db/rows.js";
import { workflowsRepo } from "../db/workflows-repo.js";
import type { Engine } from "./engine.js";

export interface StartRequest {
  projectId: string;
  workflowId: string;
  contactIds: string[];
  context: Record<string, unknown>;
  triggerKey: string | null;
  /** The executions' ids, one per contact (a manual start's idempotency); new ones when absent. */
  ids?: string[];
  /** Checked against the workflow row under its lock; false refuses the start. */
  accepts(w: WorkflowRow): boolean;
}

/**
 * Starts executions (trigger events, manual starts, schedule ticks) and hands them to the engine.
 * The workflow row is read FOR KEY SHARE: starts run side by side, while a structural edit (FOR
 * UPDATE) waits for them, so "no active executions" cannot change under an edit's feet.
 */
export class Starter {
  constructor(
    private readonly sql: Sql,
    private readonly engine: Engine,
    private readonly log: Logger,
    private readonly leaseMs: number,
  ) {}

  /** Null when the workflow is missing or refuses; otherwise the executions actually started. */
  async start(req: StartRequest): Promise<ExecutionRow[] | null> {
    const token = newId();
    const started = await this.sql.begin(async (tx) => {
      const w = await workflowsRepo.forStart(tx, req.projectId, req.workflowId);
      if (!w?.trigger_step_id || !req.accepts(w)) return null;
      return executionsRepo.start(tx, {
        projectId: req.projectId,
        workflowId: w.id,
        allowReentry: w.allow_reentry,
        triggerStepId: w.trigger_step_id,
        firstStepId: w.first_step_id,
        ids: req.ids ?? req.contactIds.map(() => newId()),
        runIds: req.contactIds.map(() => newId()),
        nextRunIds: req.contactIds.map(() => newId()),
        contactIds: req.contactIds,
        context: req.context,
        triggerKey: req.triggerKey,
        token,
        leaseMs: this.leaseMs,
      }, w.updated_at);
    });
    if (!started) return null;
    if (started.length) {
      this.log.debug({ workflowId: req.workflowId, n: started.length }, "executions started");
      this.engine.submit(started);
    }
    return started.map((c) => c.row!);
  }

  /** Resolves when the engine has room for more (schedule ticks start their audience page by page). */
  room(): Promise<void> {
    return this.engine.room();
  }
}
