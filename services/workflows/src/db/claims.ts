import type { ExecutionRow, StepRunRow } from "./rows.js";

/** An execution row as a claiming statement returns it: with its workflow's version (updated_at). */
export type ClaimedRow = ExecutionRow & { workflow_version: Date };

/** A claim on an execution: whoever holds the token runs its steps. */
export interface Claim {
  id: string;
  token: string;
  /** The row as the claiming statement returned it, so the engine starts without reading it again. */
  row?: ClaimedRow;
  /** The current step's run, when the claiming statement created it (a start's TRIGGER run). */
  run?: StepRunRow;
  /** performance.now() at the claim: one queued for long is checked again before it runs. */
  at?: number;
}

/** Every claiming statement returns its rows with this column, the engine's graph cache key. */
export const VERSION = "(select w.updated_at from workflows w where w.id = e.workflow_id) as workflow_version";

/** A claim's lease as an interval parameter (`${lease(ms)}::interval`). */
export const lease = (ms: number) => `${Math.round(ms)} milliseconds`;

export const claimsOf = (rows: ClaimedRow[], token: string): Claim[] => {
  const at = performance.now();
  return rows.map((row) => ({ id: row.id, token, row, at }));
};

/**
 * A start's claim: the execution and the run of its current step, both made by the starting
 * statement. The TRIGGER step does nothing, so a start completes its run at once and begins the step
 * after it; only a workflow with no step after the TRIGGER starts on the TRIGGER itself.
 */
export type StartedRow = ClaimedRow & { run_id: string; run_started_at: Date };
export const startedClaim = (r: StartedRow, token: string): Claim => {
  const { run_id, run_started_at, ...row } = r;
  return { id: row.id, token, row, run: runningRun(run_id, row.id, row.current_step_id!, run_started_at), at: performance.now() };
};

/** A step run just created RUNNING by the statement that returned its id and start. */
export const runningRun = (id: string, executionId: string, stepId: string, startedAt: Date): StepRunRow => ({
  id,
  execution_id: executionId,
  step_id: stepId,
  status: "RUNNING",
  error: null,
  effect_at: null,
  started_at: startedAt,
  finished_at: null,
});
