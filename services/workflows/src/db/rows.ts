import type { Execution, Step, StepRun, Transition, Workflow } from "@mailroom/contracts";
import type postgres from "postgres";

/** The pool or a transaction: both run tagged queries. */
export type Q = postgres.ISql;

/**
 * drizzle(sql) swaps the shared postgres.js client's timestamp parsers for pass-through ones, so
 * timestamps may come back as text; both forms are accepted.
 */
export type Ts = Date | string;
export const iso = (t: Ts) => new Date(t).toISOString();
export const isoOrNull = (t: Ts | null) => (t === null ? null : iso(t));
export const json = (v: unknown) => JSON.stringify(v);

export interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  enabled: boolean;
  allow_reentry: boolean;
  trigger_type: Workflow["triggerType"];
  trigger_config: Workflow["triggerConfig"];
  trigger_event: string | null;
  enabled_at: Ts | null;
  created_at: Ts;
  updated_at: Ts;
}

export interface StepRow {
  id: string;
  workflow_id: string;
  type: Step["type"];
  name: string;
  config: Record<string, unknown>;
  position: { x: number; y: number };
}

export interface TransitionRow {
  id: string;
  workflow_id: string;
  from_step_id: string;
  to_step_id: string;
  branch: "yes" | "no" | null;
  wait_outcome: "EVENT" | "TIMEOUT" | null;
}

export interface ExecutionRow {
  id: string;
  project_id: string;
  workflow_id: string;
  contact_id: string;
  status: Execution["status"];
  exit_reason: string | null;
  context: Record<string, unknown>;
  current_step_id: string | null;
  started_at: Ts;
  finished_at: Ts | null;
}

export interface StepRunRow {
  id: string;
  execution_id: string;
  step_id: string;
  status: StepRun["status"];
  error: string | null;
  effect_at: Ts | null;
  started_at: Ts;
  finished_at: Ts | null;
}

export const toStep = (r: StepRow): Step => ({ id: r.id, type: r.type, name: r.name, config: r.config, position: r.position }) as Step;

export const toTransition = (r: TransitionRow): Transition => ({
  id: r.id,
  fromStepId: r.from_step_id,
  toStepId: r.to_step_id,
  branch: r.branch,
  waitOutcome: r.wait_outcome,
});

export function toWorkflow(r: WorkflowRow, steps: StepRow[], transitions: TransitionRow[]): Workflow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    enabled: r.enabled,
    allowReentry: r.allow_reentry,
    triggerType: r.trigger_type,
    triggerConfig: r.trigger_config,
    steps: steps.map(toStep),
    transitions: transitions.map(toTransition),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export const toExecution = (r: ExecutionRow): Execution => ({
  id: r.id,
  workflowId: r.workflow_id,
  contactId: r.contact_id,
  status: r.status,
  exitReason: r.exit_reason,
  context: r.context,
  startedAt: iso(r.started_at),
  finishedAt: isoOrNull(r.finished_at),
});

export const toStepRun = (r: StepRunRow): StepRun => ({
  stepId: r.step_id,
  status: r.status,
  startedAt: iso(r.started_at),
  finishedAt: isoOrNull(r.finished_at),
  error: r.error,
});
