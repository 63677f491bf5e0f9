import type { ExecutionStatus, StepRunStatus, StepType, TriggerConfig, TriggerType } from "@mailroom/contracts";
import { sql } from "drizzle-orm";
import { pgTable, uuid, text, boolean, jsonb, timestamp, index, integer, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";
export { outbox } from "@mailroom/kit";

/** Generic in the name, so `Row<…>` keys the column by it (a plain `string` would widen every row to an index signature). */
const ts = <N extends string>(name: N) => timestamp(name, { withTimezone: true });

export const workflows = pgTable(
  "workflows",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    enabled: boolean("enabled").notNull().default(false),
    allowReentry: boolean("allow_reentry").notNull().default(false),
    triggerType: text("trigger_type").$type<TriggerType>().notNull(),
    triggerConfig: jsonb("trigger_config").$type<TriggerConfig>().notNull(),
    /** triggerConfig.eventName of EVENT workflows, as a column so the trigger consumer finds them by index. */
    triggerEvent: text("trigger_event"),
    /** When it was last enabled: events that occurred before it (a lagging or replayed stream) start nothing. */
    enabledAt: ts("enabled_at"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    index("workflows_project_idx").on(t.projectId, t.createdAt),
    index("workflows_event_idx").on(t.projectId, t.triggerEvent).where(sql`enabled and trigger_type = 'EVENT'`),
    index("workflows_schedule_idx").on(t.triggerType).where(sql`enabled and trigger_type = 'SCHEDULE'`),
  ],
);

export const steps = pgTable(
  "steps",
  {
    id: uuid("id").primaryKey(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    type: text("type").$type<StepType>().notNull(),
    name: text("name").notNull(),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    position: jsonb("position").$type<{ x: number; y: number }>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("steps_workflow_idx").on(t.workflowId)],
);

export const transitions = pgTable(
  "transitions",
  {
    id: uuid("id").primaryKey(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    fromStepId: uuid("from_step_id")
      .notNull()
      .references(() => steps.id, { onDelete: "cascade" }),
    toStepId: uuid("to_step_id")
      .notNull()
      .references(() => steps.id, { onDelete: "cascade" }),
    branch: text("branch").$type<"yes" | "no">(),
    waitOutcome: text("wait_outcome").$type<"EVENT" | "TIMEOUT">(),
  },
  (t) => [index("transitions_workflow_idx").on(t.workflowId)],
);

/**
 * One row per execution. `lease_until` is the claim: only the replica whose UPDATE set it runs the
 * execution's steps, and a crashed replica's claim simply expires and is taken over.
 */
export const executions = pgTable(
  "executions",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").notNull(),
    status: text("status").$type<ExecutionStatus>().notNull(),
    exitReason: text("exit_reason"),
    context: jsonb("context").$type<Record<string, unknown>>().notNull(),
    /** The step to run next (RUNNING) or being waited on (WAITING). */
    currentStepId: uuid("current_step_id"),
    /** WAITING on WAIT_FOR_EVENT: the event name and since when (older events do not resume it). */
    waitEvent: text("wait_event"),
    waitSince: ts("wait_since"),
    /** The event that started it, so a redelivered trigger message starts nothing twice. */
    triggerKey: text("trigger_key"),
    /** Set by each claim; every write of the run checks it, so a replica that lost its claim stops. */
    leaseToken: uuid("lease_token"),
    leaseUntil: ts("lease_until"),
    startedAt: ts("started_at").notNull(),
    finishedAt: ts("finished_at"),
  },
  (t) => [
    index("executions_workflow_idx").on(t.workflowId, t.id),
    // allowReentry true: never two active executions of one workflow for one contact.
    uniqueIndex("executions_one_active_uq")
      .on(t.workflowId, t.contactId)
      .where(sql`status in ('RUNNING', 'WAITING')`),
    uniqueIndex("executions_trigger_uq").on(t.workflowId, t.contactId, t.triggerKey),
    index("executions_waiting_event_idx")
      .on(t.projectId, t.contactId, t.waitEvent)
      .where(sql`status = 'WAITING' and wait_event is not null`),
    index("executions_runnable_idx").on(t.leaseUntil).where(sql`status = 'RUNNING'`),
  ],
);

/** Every contact that ever entered a workflow: allowReentry false is one INSERT … ON CONFLICT DO NOTHING. */
export const entries = pgTable(
  "entries",
  {
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.contactId] })],
);

/** A workflow's graph has no cycles, so a step runs at most once per execution: (execution, step) is unique. */
export const stepRuns = pgTable(
  "step_runs",
  {
    id: uuid("id").primaryKey(),
    executionId: uuid("execution_id")
      .notNull()
      .references(() => executions.id, { onDelete: "cascade" }),
    stepId: uuid("step_id").notNull(),
    status: text("status").$type<StepRunStatus>().notNull(),
    error: text("error"),
    /** Set just before an effect that must not repeat (a webhook request); a re-run after a crash sees it. */
    effectAt: ts("effect_at"),
    startedAt: ts("started_at").notNull(),
    finishedAt: ts("finished_at"),
  },
  (t) => [uniqueIndex("step_runs_execution_step_uq").on(t.executionId, t.stepId)],
);

/** Durable timers (DELAY, WAIT_FOR_EVENT timeout): one per waiting execution, polled by due time. */
export const timers = pgTable(
  "timers",
  {
    executionId: uuid("execution_id")
      .primaryKey()
      .references(() => executions.id, { onDelete: "cascade" }),
    stepId: uuid("step_id").notNull(),
    dueAt: ts("due_at").notNull(),
  },
  (t) => [index("timers_due_idx").on(t.dueAt)],
);

/** SCHEDULE ticks already claimed: the first replica to insert (workflow, tick) runs it. */
export const scheduleTicks = pgTable(
  "schedule_ticks",
  {
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    tickAt: ts("tick_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.tickAt] })],
);

/**
 * Outbound webhook endpoints (decisions.md §16). The secret is stored as given out (`whsec_…`): the
 * service signs with it on every delivery, so it cannot be kept as a hash. After a rotation the
 * previous secret signs beside the new one until `previous_secret_expires_at`.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    description: text("description"),
    enabled: boolean("enabled").notNull(),
    disabledReason: text("disabled_reason"),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: ts("previous_secret_expires_at"),
    /** The first failed attempt since the last success: five days of failures disable the endpoint. */
    failingSince: ts("failing_since"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_project_idx").on(t.projectId, t.createdAt)],
);

/**
 * One row per (endpoint, event): the unique pair makes a redelivered event message insert nothing
 * twice, and `event_id` is the `webhook-id` every attempt sends. PENDING rows are claimed by due
 * time (`next_attempt_at`), which a claim pushes past the call's time as its lease.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    projectId: uuid("project_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The body as sent, byte for byte on every attempt (the signature covers it). */
    body: text("body").notNull(),
    status: text("status").$type<"PENDING" | "SUCCEEDED" | "FAILED">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at"),
    lastAttemptAt: ts("last_attempt_at"),
    responseCode: integer("response_code"),
    responseBody: text("response_body"),
    error: text("error"),
    /** The claim's token: only the claimer's answer is recorded. */
    leaseToken: uuid("lease_token"),
    /**
     * Until when the claim holds: in no index, so a claim is a HOT update (the table's fillfactor
     * leaves room on each page) that writes no index entry and leaves `next_attempt_at`, and the
     * row's place in the due index, as they were.
     */
    leaseUntil: ts("lease_until"),
    createdAt: ts("created_at").notNull(),
  },
  // No index on created_at: ids are UUIDv7, so the retention purge goes by id.
  (t) => [
    uniqueIndex("webhook_deliveries_event_uq").on(t.endpointId, t.eventId),
    index("webhook_deliveries_log_idx").on(t.endpointId, t.id),
    index("webhook_deliveries_due_idx").on(t.endpointId, t.nextAttemptAt).where(sql`status = 'PENDING'`),
  ],
);
