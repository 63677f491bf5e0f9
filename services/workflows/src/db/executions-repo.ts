import type { ExecutionStatus } from "@mailroom/contracts";
import { type ExecutionRow, type Q, type StepRunRow, json } from "./rows.js";

/** A claim on an execution: whoever holds the token runs its steps. */
export interface Claim {
  id: string;
  token: string;
}

export interface StartBatch {
  projectId: string;
  workflowId: string;
  allowReentry: boolean;
  triggerStepId: string;
  /** One new execution id per contact, same order. */
  ids: string[];
  contactIds: string[];
  context: Record<string, unknown>;
  /** Names the trigger occurrence (event id, schedule tick); null for manual starts. */
  triggerKey: string | null;
  token: string;
  leaseMs: number;
}

const lease = (ms: number) => `${Math.round(ms)} milliseconds`;

export const executionsRepo = {
  /**
   * Starts executions in one statement. allowReentry false is decided by the INSERT into `entries`
   * (a contact already there is skipped), "never two active at once" and "one execution per trigger
   * occurrence" by unique indexes; concurrent starts for one contact therefore serialize in PostgreSQL
   * instead of racing between a read and a write.
   */
  async start(q: Q, b: StartBatch): Promise<ExecutionRow[]> {
    return q<ExecutionRow[]>`
      with input as (select * from unnest(${b.ids}::uuid[], ${b.contactIds}::uuid[]) as t(id, contact_id)),
      entered as (
        insert into entries (workflow_id, contact_id) select ${b.workflowId}, contact_id from input
        on conflict do nothing returning contact_id)
      insert into executions (id, project_id, workflow_id, contact_id, status, context, current_step_id, trigger_key,
        lease_token, lease_until, started_at)
      select i.id, ${b.projectId}, ${b.workflowId}, i.contact_id, 'RUNNING', ${json(b.context)}::jsonb, ${b.triggerStepId},
        ${b.triggerKey}, ${b.token}, now() + ${lease(b.leaseMs)}::interval, now()
      from input i where ${b.allowReentry} or i.contact_id in (select contact_id from entered)
      on conflict do nothing
      returning *`;
  },

  async get(q: Q, projectId: string, workflowId: string, id: string): Promise<ExecutionRow | null> {
    const rows = await q<ExecutionRow[]>`select * from executions
      where project_id = ${projectId} and workflow_id = ${workflowId} and id = ${id}`;
    return rows[0] ?? null;
  },

  async byId(q: Q, id: string): Promise<ExecutionRow | null> {
    const rows = await q<ExecutionRow[]>`select * from executions where id = ${id}`;
    return rows[0] ?? null;
  },

  /** Newest first; `beforeId` is the last id of the previous page (ids are time-ordered UUIDv7). */
  async list(q: Q, workflowId: string, status: ExecutionStatus | undefined, limit: number, beforeId: string | undefined) {
    return q<ExecutionRow[]>`select * from executions where workflow_id = ${workflowId}
      ${status ? q`and status = ${status}` : q``} ${beforeId ? q`and id < ${beforeId}` : q``}
      order by id desc limit ${limit}`;
  },

  async stepRuns(q: Q, executionId: string): Promise<StepRunRow[]> {
    return q<StepRunRow[]>`select * from step_runs where execution_id = ${executionId} order by started_at, id`;
  },

  /** Cancels one execution (`id`) or all active ones of the workflow; their timers go with them. */
  async cancel(q: Q, workflowId: string, id?: string): Promise<ExecutionRow[]> {
    const rows = await q<ExecutionRow[]>`update executions set status = 'CANCELLED', finished_at = now(),
        wait_event = null, lease_token = null, lease_until = null
      where workflow_id = ${workflowId} ${id ? q`and id = ${id}` : q``} and status in ('RUNNING', 'WAITING')
      returning *`;
    if (rows.length === 0) return rows;
    const ids = rows.map((r) => r.id);
    await q`delete from timers where execution_id = any(${ids}::uuid[])`;
    await q`update step_runs set status = 'CANCELLED', finished_at = now()
      where execution_id = any(${ids}::uuid[]) and status in ('RUNNING', 'WAITING')`;
    return rows;
  },

  /** Takes over a RUNNING execution whose claim is `expected` or has expired. */
  async claim(q: Q, id: string, expected: string | null, token: string, leaseMs: number): Promise<ExecutionRow | null> {
    const rows = await q<ExecutionRow[]>`update executions set lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval
      where id = ${id} and status = 'RUNNING' and (lease_token = ${expected} or lease_until is null or lease_until < now())
      returning *`;
    return rows[0] ?? null;
  },

  /** RUNNING executions whose replica died (or backed off): claimed for this replica. */
  async claimAbandoned(q: Q, limit: number, token: string, leaseMs: number): Promise<Claim[]> {
    return q<Claim[]>`update executions set lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval
      where id in (select id from executions where status = 'RUNNING' and lease_until < now()
        order by lease_until limit ${limit} for update skip locked)
      returning id, lease_token as token`;
  },

  /**
   * Fires due timers: the waiting step run completes and the execution moves on to the step after it
   * (a DELAY's one edge, a WAIT_FOR_EVENT's TIMEOUT edge; none means the end). SKIP LOCKED lets every
   * replica poll the same table without two of them firing one timer.
   */
  async fireDueTimers(q: Q, limit: number, token: string, leaseMs: number): Promise<Claim[]> {
    return q<Claim[]>`
      with due as (
        delete from timers where execution_id in (
          select execution_id from timers where due_at <= now() order by due_at limit ${limit} for update skip locked)
        returning execution_id, step_id),
      runs as (
        update step_runs r set status = 'COMPLETED', finished_at = now()
        from due where r.execution_id = due.execution_id and r.step_id = due.step_id and r.status = 'WAITING')
      update executions e set status = 'RUNNING', wait_event = null, wait_since = null,
        lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval,
        current_step_id = (select t.to_step_id from transitions t
          where t.from_step_id = due.step_id and coalesce(t.wait_outcome, 'TIMEOUT') = 'TIMEOUT' limit 1)
      from due where e.id = due.execution_id and e.status = 'WAITING'
      returning e.id, e.lease_token as token`;
  },

  /** Resumes the contact's executions waiting for this event (since before it occurred) along their EVENT edge. */
  async resumeOnEvent(
    q: Q,
    e: { projectId: string; contactId: string; name: string; occurredAt: string; data: Record<string, unknown> },
    token: string,
    leaseMs: number,
  ): Promise<Claim[]> {
    const resumed = await q<Array<Claim & { wait_step: string }>>`
      update executions e set status = 'RUNNING', wait_event = null, wait_since = null,
        lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval,
        context = jsonb_set(e.context, '{event}', coalesce(e.context->'event', '{}'::jsonb) || ${json(e.data)}::jsonb),
        current_step_id = (select t.to_step_id from transitions t where t.from_step_id = w.wait_step and t.wait_outcome = 'EVENT' limit 1)
      from (select id, current_step_id as wait_step from executions
        where project_id = ${e.projectId} and contact_id = ${e.contactId} and status = 'WAITING' and wait_event = ${e.name}) w
      where e.id = w.id and e.status = 'WAITING' and e.wait_event = ${e.name} and e.wait_since <= ${e.occurredAt}
      returning e.id, e.lease_token as token, w.wait_step`;
    if (resumed.length === 0) return [];
    const ids = resumed.map((r) => r.id);
    await q`delete from timers where execution_id = any(${ids}::uuid[])`;
    await q`update step_runs set status = 'COMPLETED', finished_at = now()
      where execution_id = any(${ids}::uuid[]) and status = 'WAITING'`;
    return resumed.map(({ id, token }) => ({ id, token }));
  },

  /** The step run of (execution, step), created on first visit; a re-run after a crash finds the first one. */
  async beginStepRun(q: Q, id: string, executionId: string, stepId: string): Promise<StepRunRow> {
    const [row] = await q<StepRunRow[]>`
      with ins as (
        insert into step_runs (id, execution_id, step_id, status, started_at) values (${id}, ${executionId}, ${stepId}, 'RUNNING', now())
        on conflict (execution_id, step_id) do nothing returning *)
      select * from ins union all select * from step_runs where execution_id = ${executionId} and step_id = ${stepId}
      limit 1`;
    return row!;
  },

  /** Records that a non-repeatable effect is about to happen; false when a previous attempt already started it. */
  async markEffect(q: Q, stepRunId: string): Promise<boolean> {
    const rows = await q`update step_runs set effect_at = now() where id = ${stepRunId} and effect_at is null returning 1`;
    return rows.length > 0;
  },

  /** Pushes a claim's expiry out (a transient failure retries after `ms`, from any replica). */
  async backOff(q: Q, id: string, token: string, ms: number): Promise<void> {
    await q`update executions set lease_until = now() + ${lease(ms)}::interval where id = ${id} and lease_token = ${token}`;
  },
};
