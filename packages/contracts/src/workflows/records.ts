import { z } from "zod";
import { JsonObject, Timestamp } from "../common.js";
import { Step, TriggerConfig, TriggerType } from "./steps.js";

export const TRANSITION_BRANCHES = ["yes", "no"] as const;
export const WAIT_OUTCOMES = ["EVENT", "TIMEOUT"] as const;

export const Transition = z.object({
  id: z.string(),
  fromStepId: z.string(),
  toStepId: z.string(),
  /** Set on the edges of a CONDITION step. */
  branch: z.enum(TRANSITION_BRANCHES).nullable(),
  /** Set on the edges of a WAIT_FOR_EVENT step. */
  waitOutcome: z.enum(WAIT_OUTCOMES).nullable(),
});
export type Transition = z.infer<typeof Transition>;

export const Workflow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  allowReentry: z.boolean(),
  triggerType: TriggerType,
  triggerConfig: TriggerConfig,
  steps: z.array(Step),
  transitions: z.array(Transition),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Workflow = z.infer<typeof Workflow>;

export const EXECUTION_STATUSES = ["RUNNING", "WAITING", "COMPLETED", "EXITED", "FAILED", "CANCELLED"] as const;
export const ExecutionStatus = z.enum(EXECUTION_STATUSES);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;
/** The statuses that lock a workflow against structural edits. */
export const ACTIVE_EXECUTION_STATUSES = ["RUNNING", "WAITING"] as const satisfies readonly ExecutionStatus[];

export const Execution = z.object({
  id: z.string(),
  workflowId: z.string(),
  contactId: z.string(),
  status: ExecutionStatus,
  exitReason: z.string().nullable(),
  /** `{event: <trigger event data>}` merged with the manual context. */
  context: JsonObject,
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
});
export type Execution = z.infer<typeof Execution>;

export const STEP_RUN_STATUSES = ["RUNNING", "WAITING", "COMPLETED", "FAILED", "CANCELLED"] as const;
export const StepRunStatus = z.enum(STEP_RUN_STATUSES);
export type StepRunStatus = z.infer<typeof StepRunStatus>;

export const StepRun = z.object({
  stepId: z.string(),
  status: StepRunStatus,
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  error: z.string().nullable(),
});
export type StepRun = z.infer<typeof StepRun>;

/** GET /workflows/{id}/executions/{executionId}: the execution with its step runs in order. */
export const ExecutionDetail = Execution.extend({ steps: z.array(StepRun) });
export type ExecutionDetail = z.infer<typeof ExecutionDetail>;
