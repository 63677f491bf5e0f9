import type { Execution, Step, StepRun, Transition, Workflow } from "@mailroom/contracts";
import { iso, isoOrNull, type Row } from "@mailroom/kit";
import type { executions, stepRuns, steps, transitions, workflows } from "./schema.js";

/** The rows as raw SQL returns them (schema column names, `Date` timestamps), and their API form. */
export type WorkflowRow = Row<typeof workflows>;
/** A step as the graph queries select it (without `created_at`, which only orders them). */
export type StepRow = Pick<Row<typeof steps>, "id" | "workflow_id" | "type" | "name" | "config" | "position">;
export type TransitionRow = Row<typeof transitions>;
export type ExecutionRow = Row<typeof executions>;
export type StepRunRow = Row<typeof stepRuns>;

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
