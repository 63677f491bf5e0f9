import type { ExecutionStatus } from "@mailroom/contracts";
import { json, type Q, traced } from "@mailroom/kit";
import { type Claim, type ClaimedRow, claimsOf, lease, runningRun, type StartedRow, startedClaim, VERSION } from "./claims.js";
import type { ExecutionRow, StepRunRow } from "./rows.js";
import { ENTRY_STEPS } from "./workflows-repo.js";

/** One event's starts: an execution of each listening workflow (ids made by the caller, one pair per workflow). */
export interface EventStart {
  id: string;
  /** The TRIGGER step's run, and the run of the step after it. */
  runId: string;
  nextRunId: string;
  workflowId: string;
  projectId: string;
  contactId: string;
  name: string;
  occurredAt: string;
  triggerKey: string;
  context: Record<string, unknown>;
}

export interface StartBatch {
  projectId: string;
  workflowId: string;
  allowReentry: boolean;
  triggerStepId: string;
  /** The step after the TRIGGER; null when there is none. */
  firstStepId: string | null;
  /** One new execution id per contact, same order. */
  ids: string[];
  /** One new step run id (the TRIGGER's) per contact, same order. */
  runIds: string[];
  /** One new step run id (the step after the TRIGGER) per contact, same order. */
  nextRunIds: string[];
  contactIds: string[];
  context: Record<string, unknown>;
  /** Names the trigger occurrence (event id, schedule tick); null for manual starts. */
  triggerKey: string | null;
  token: string;
  leaseMs: number;
}

/**
 * The CTEs of a start's step runs, after `ins` (the executions) and `input` (with run_id, next_run_id,
 * trigger_step_id, first_step_id): the TRIGGER's run, completed when there is a step after it, and
 * that step's run, RUNNING. `runs` is the run each execution starts on.
 */
const startRuns = (q: Q, input: "input" | "ok") => q`
      trig as (
        insert into step_runs (id, execution_id, step_id, status, started_at, finished_at)
        select i.run_id, ins.id, i.trigger_step_id, case when i.first_step_id is null then 'RUNNING' else 'COMPLETED' end, now(),
          case when i.first_step_id is null then null else now() end
        from ins join ${q(input)} i on i.id = ins.id
        returning id, execution_id, started_at),
      first as (
        insert into step_runs (id, execution_id, step_id, status, started_at)
        select i.next_run_id, ins.id, i.first_step_id, 'RUNNING', now()
        from ins join ${q(input)} i on i.id = ins.id where i.first_step_id is not null
        returning id, execution_id, started_at),
      runs as (select * from first union all select * from trig where execution_id not in (select execution_id from first))`;

export const executionsRepo = traced("ExecutionsRepo", {
  /**
   * Starts executions in one statement. allowReentry false is decided by the INSERT into `entries`
   * (a contact already there is skipped), "never two active at once" and "one execution per trigger
   * occurrence" by unique indexes; concurrent starts for one contact therefore serialize in PostgreSQL
   * instead of racing between a read and a write. The step runs are made with each execution
   * (`startRuns`), so the engine starts on the first real step without a write of its own.
   */
  async start(q: Q, b: StartBatch, workflowVersion: Date): Promise<Claim[]> {
    const rows = await q<StartedRow[]>`
      with input as (
        select t.*, ${b.triggerStepId}::uuid as trigger_step_id, ${b.firstStepId}::uuid as first_step_id
        from unnest(${b.ids}::uuid[], ${b.runIds}::uuid[], ${b.nextRunIds}::uuid[], ${b.contactIds}::uuid[]) as t(id, run_id, next_run_id, contact_id)),
      entered as (
        insert into entries (workflow_id, contact_id) select ${b.workflowId}, contact_id from input
        on conflict do nothing returning contact_id),
      ins as (
        insert into executions (id, project_id, workflow_id, contact_id, status, context, current_step_id, trigger_key,
          lease_token, lease_until, started_at)
        select i.id, ${b.projectId}, ${b.workflowId}, i.contact_id, 'RUNNING', ${json(b.context)}::jsonb,
          coalesce(i.first_step_id, i.trigger_step_id), ${b.triggerKey}, ${b.token}, now() + ${lease(b.leaseMs)}::interval, now()
        from input i where ${b.allowReentry} or i.contact_id in (select contact_id from entered)
        on conflict do nothing
        returning *),
      ${startRuns(q, "input")}
      select ins.*, ${workflowVersion}::timestamptz as workflow_version, runs.id as run_id, runs.started_at as run_started_at
      from ins join runs on runs.execution_id = ins.id`;
    return rows.map((r) => startedClaim(r, b.token));
  },

  /**
   * The trigger consumer's starts for a batch of events, in one statement: the same rules as
   * \`start\` (entries, unique indexes), and the workflow's own rules read under FOR KEY SHARE: still
   * enabled, still an EVENT trigger of that name, enabled before the event occurred (an event of a
   * lagging or replayed stream starts nothing).
   */
  async startForEvents(q: Q, starts: EventStart[], token: string, leaseMs: number): Promise<Claim[]> {
    if (starts.length === 0) return [];
    const input = starts.map((s) => ({
      id: s.id,
      run_id: s.runId,
      next_run_id: s.nextRunId,
      workflow_id: s.workflowId,
      project_id: s.projectId,
      contact_id: s.contactId,
      name: s.name,
      occurred_at: s.occurredAt,
      trigger_key: s.triggerKey,
      context: s.context,
    }));
    const rows = await q<StartedRow[]>`
      with input as (
        select * from jsonb_to_recordset(${json(input)}::jsonb) as t(id uuid, run_id uuid, next_run_id uuid, workflow_id uuid,
          project_id uuid, contact_id uuid, name text, occurred_at timestamptz, trigger_key text, context jsonb)),
      w as (
        select w.id, w.project_id, w.allow_reentry, w.trigger_event, w.enabled_at, w.updated_at, entry.trigger_step_id, entry.first_step_id
        from workflows w ${q.unsafe(ENTRY_STEPS)}
        where w.id in (select workflow_id from input) and w.enabled and w.trigger_type = 'EVENT'
        for key share of w),
      ok as (
        select i.*, w.allow_reentry, w.trigger_step_id, w.first_step_id, w.updated_at as workflow_version from input i
        join w on w.id = i.workflow_id and w.project_id = i.project_id and w.trigger_event = i.name
          and w.enabled_at is not null and w.enabled_at <= i.occurred_at and w.trigger_step_id is not null),
      entered as (
        insert into entries (workflow_id, contact_id) select workflow_id, contact_id from ok
        on conflict do nothing returning workflow_id, contact_id),
      ins as (
        insert into executions (id, project_id, workflow_id, contact_id, status, context, current_step_id, trigger_key,
          lease_token, lease_until, started_at)
        select ok.id, ok.project_id, ok.workflow_id, ok.contact_id, 'RUNNING', ok.context,
          coalesce(ok.first_step_id, ok.trigger_step_id), ok.trigger_key,
          ${token}, now() + ${lease(leaseMs)}::interval, now()
        from ok where ok.allow_reentry
          or exists (select 1 from entered n where n.workflow_id = ok.workflow_id and n.contact_id = ok.contact_id)
        order by ok.occurred_at
        on conflict do nothing
        returning *),
      ${startRuns(q, "ok")}
      select ins.*, ok.workflow_version, runs.id as run_id, runs.started_at as run_started_at
      from ins join runs on runs.execution_id = ins.id join ok on ok.id = ins.id`;
    return rows.map((r) => startedClaim(r, token));
  },

  async get(q: Q, projectId: string, workflowId: string, id: string): Promise<ExecutionRow | null> {
    const rows = await q<ExecutionRow[]>`select * from executions
      where project_id = ${projectId} and workflow_id = ${workflowId} and id = ${id}`;
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
  async claim(q: Q, id: string, expected: string | null, token: string, leaseMs: number): Promise<ClaimedRow | null> {
    const rows = await q<ClaimedRow[]>`update executions e set lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval
      where id = ${id} and status = 'RUNNING' and (lease_token = ${expected} or lease_until is null or lease_until < now())
      returning e.*, ${q.unsafe(VERSION)}`;
    return rows[0] ?? null;
  },

  /** RUNNING executions whose replica died (or backed off): claimed for this replica. */
  async claimAbandoned(q: Q, limit: number, token: string, leaseMs: number): Promise<Claim[]> {
    if (limit <= 0) return [];
    const rows = await q<ClaimedRow[]>`update executions e set lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval
      where id in (select id from executions where status = 'RUNNING' and lease_until < now()
        order by lease_until limit ${limit} for update skip locked)
      returning e.*, ${q.unsafe(VERSION)}`;
    return claimsOf(rows, token);
  },

  /**
   * Moves a claimed execution on to `next` in one statement (CTEs: atomic without a transaction's
   * extra round trips): the step run `runId` completes and `next`'s run is created, but only if the
   * execution update matched (claim held, still RUNNING); null when it did not. `run` is missing when
   * `next` had a run already (a re-run after a crash).
   */
  async advance(
    q: Q,
    id: string,
    token: string,
    runId: string,
    next: string,
    nextRunId: string,
    leaseMs: number,
  ): Promise<{ execution: ExecutionRow; run?: StepRunRow } | null> {
    const [row] = await q<Array<ExecutionRow & { next_run_id: string | null; next_run_started_at: Date | null }>>`
      with e as (
        update executions set current_step_id = ${next}, lease_until = now() + ${lease(leaseMs)}::interval
        where id = ${id} and lease_token = ${token} and status = 'RUNNING' returning *),
      r as (update step_runs set status = 'COMPLETED', finished_at = now() where id = ${runId} and exists (select 1 from e)),
      n as (
        insert into step_runs (id, execution_id, step_id, status, started_at) select ${nextRunId}, e.id, ${next}, 'RUNNING', now() from e
        on conflict (execution_id, step_id) do nothing returning id, started_at)
      select e.*, n.id as next_run_id, n.started_at as next_run_started_at from e left join n on true`;
    if (!row) return null;
    const { next_run_id, next_run_started_at, ...execution } = row;
    if (next_run_id === null || next_run_started_at === null) return { execution };
    return { execution, run: runningRun(next_run_id, id, next, next_run_started_at) };
  },

  /** Ends a claimed execution, and its step run `runId` with it (FAILED with `error`, else COMPLETED). */
  async end(
    q: Q,
    id: string,
    token: string,
    runId: string | null,
    status: "COMPLETED" | "EXITED" | "FAILED",
    exitReason: string | null,
    error: string | null,
  ): Promise<void> {
    await q`
      with e as (
        update executions set status = ${status}, exit_reason = ${exitReason}, finished_at = now(),
          lease_token = null, lease_until = null
        where id = ${id} and lease_token = ${token} and status = 'RUNNING' returning id)
      update step_runs set status = ${status === "FAILED" ? "FAILED" : "COMPLETED"}, error = ${error}, finished_at = now()
      where id = ${runId} and exists (select 1 from e)`;
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

  /**
   * Gives a claim back (the replica is shutting down): the execution stays RUNNING and any replica's
   * next poll takes it over, instead of waiting out the lease. `interruptedRunId` is a step run whose
   * effect was cut short by the shutdown: its mark goes too, so the step runs again rather than fail.
   */
  async release(q: Q, id: string, token: string, interruptedRunId: string | null = null): Promise<void> {
    await q`
      with e as (
        update executions set lease_token = null, lease_until = now()
        where id = ${id} and lease_token = ${token} and status = 'RUNNING' returning id)
      update step_runs set effect_at = null where id = ${interruptedRunId} and exists (select 1 from e)`;
  },

  /** The heartbeat of a claim (kit `Lease`): false once `token` no longer holds the execution. */
  async renew(q: Q, id: string, token: string, leaseMs: number): Promise<boolean> {
    const rows = await q`update executions set lease_until = now() + ${lease(leaseMs)}::interval
      where id = ${id} and lease_token = ${token} and status = 'RUNNING' returning 1`;
    return rows.length > 0;
  },

  /** Pushes a claim's expiry out (a transient failure retries after `ms`, from any replica). */
  async backOff(q: Q, id: string, token: string, ms: number): Promise<void> {
    await q`update executions set lease_until = now() + ${lease(ms)}::interval where id = ${id} and lease_token = ${token}`;
  },
});
