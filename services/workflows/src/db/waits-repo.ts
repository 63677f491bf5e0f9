import { json, type Q, traced } from "@mailroom/kit";
import { type Claim, type ClaimedRow, claimsOf, lease, VERSION } from "./claims.js";

/** How a wait ended: the contact's event came, or its timer fired (a DELAY only ever times out). */
export type WaitOutcome = "EVENT" | "TIMEOUT";

/** One event as the resume statement takes it. */
export interface ResumeEvent {
  projectId: string;
  contactId: string;
  name: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * THE rule for the edge a wait follows when it ends: the edge from the wait step labelled with its
 * outcome, an unlabelled edge (a DELAY's one edge) counting as TIMEOUT; none means the execution ends.
 * The graph rules leave at most one such edge.
 *
 * It is SQL, inside the statement that ends the wait, rather than `nextStepId` over the engine's cached
 * graph: deciding in TypeScript needs the waiting execution's graph before the statement (a read of
 * its transitions first: one more round trip for every event batch, on the track → first step path),
 * or a second write after it, and a crash between the two would leave the execution RUNNING on its
 * wait step with no record of how the wait ended (the takeover would wait again, losing the event).
 * `waitStep` is an SQL expression naming the wait step in the statement that uses this.
 */
const edgeAfter = (waitStep: string, outcome: WaitOutcome) =>
  `(select t.to_step_id from transitions t where t.from_step_id = ${waitStep} and coalesce(t.wait_outcome, 'TIMEOUT') = '${outcome}' limit 1)`;

/**
 * Where a fired timer sends the execution: a SEND_EMAIL held by its quiet hours (`rerun`, read with
 * the timer) runs again, sending now that the window is over; a DELAY or WAIT_FOR_EVENT follows its
 * TIMEOUT edge. SQL for the same reason as `edgeAfter`: the timer's end and the next step are one statement.
 */
const afterTimer = (due: string) => `case when ${due}.rerun then ${due}.step_id else ${edgeAfter(`${due}.step_id`, "TIMEOUT")} end`;

/**
 * The statements of a wait (WAIT_FOR_EVENT, and DELAY: a wait with a timer only). Resume and timeout
 * each end the wait in one statement that changes the execution only while it is still WAITING, under
 * its row lock: when an event and the timer race, the first to commit wins and the other finds the
 * execution RUNNING and changes nothing, so a wait resolves exactly once.
 *
 * Lock order, in every statement (or transaction) of the service that writes an execution's timer
 * or step runs along with the execution (block, resume and timeOut here; cancel, advance and end in
 * executions-repo): the `executions` row first, then its `timers` and `step_runs` rows, so whoever
 * holds the execution's row is alone on the rest. (The statements that write a step run alone, its
 * creation and its effect mark, hold no other lock.) Statements taking the same rows in opposite
 * orders deadlock: timeOut once deleted the timer first and then updated the execution while resume
 * did the reverse, and an event arriving as its wait timed out had PostgreSQL abort one of them
 * (40P01; test/waits-locking.test.ts races the two).
 */
export const waitsRepo = traced("WaitsRepo", {
  /**
   * Parks a claimed execution on its wait step: WAITING for `waitEvent` (since now; older events do
   * not resume it) and, with `dueAt`, a timer. One statement: the step run and the timer change only
   * if the execution update matched (claim held, still RUNNING).
   */
  async block(q: Q, id: string, token: string, stepId: string, runId: string, waitEvent: string | null, dueAt: Date | null): Promise<void> {
    await q`
      with e as (
        update executions set status = 'WAITING', wait_event = ${waitEvent}, wait_since = now(),
          lease_token = null, lease_until = null
        where id = ${id} and lease_token = ${token} and status = 'RUNNING' returning id),
      r as (update step_runs set status = 'WAITING' where id = ${runId} and exists (select 1 from e))
      insert into timers (execution_id, step_id, due_at)
      select id, ${stepId}, ${dueAt?.toISOString() ?? null} from e where ${dueAt !== null}
      on conflict (execution_id) do update set step_id = excluded.step_id, due_at = excluded.due_at`;
  },

  /**
   * Resumes the executions waiting for these events (each waiting since before its event occurred)
   * along their EVENT edge, in one statement: their timers go and their waiting step runs complete
   * with them. An execution waiting for two events of the batch takes the earlier one's data.
   * Executions are locked first, skipping those another statement holds: a WAITING execution is
   * locked only by what ends its wait (another batch's resume, a timeout, a cancel), so whatever
   * holds it moves it, and two batches taking the same rows in different orders (each batch's own)
   * never wait on each other, which deadlocked them.
   */
  async resume(q: Q, events: ResumeEvent[], token: string, leaseMs: number): Promise<Claim[]> {
    if (events.length === 0) return [];
    const input = events.map((e) => ({ project_id: e.projectId, contact_id: e.contactId, name: e.name, occurred_at: e.occurredAt, data: e.data }));
    const rows = await q<ClaimedRow[]>`
      with ev as (
        select * from jsonb_to_recordset(${json(input)}::jsonb) as t(project_id uuid, contact_id uuid, name text, occurred_at timestamptz, data jsonb)),
      locked as (
        select x.id from ev join executions x on x.project_id = ev.project_id and x.contact_id = ev.contact_id
          and x.status = 'WAITING' and x.wait_event = ev.name and x.wait_since <= ev.occurred_at
        for no key update of x skip locked),
      w as (
        select distinct on (x.id) x.id, x.current_step_id as wait_step, ev.name, ev.occurred_at, ev.data
        from ev join executions x on x.project_id = ev.project_id and x.contact_id = ev.contact_id
          and x.status = 'WAITING' and x.wait_event = ev.name and x.wait_since <= ev.occurred_at
        where x.id in (select id from locked)
        order by x.id, ev.occurred_at),
      r as (
        update executions e set status = 'RUNNING', wait_event = null, wait_since = null,
          lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval,
          context = jsonb_set(e.context, '{event}', coalesce(e.context->'event', '{}'::jsonb) || w.data),
          current_step_id = ${q.unsafe(edgeAfter("w.wait_step", "EVENT"))}
        from w where e.id = w.id and e.status = 'WAITING' and e.wait_event = w.name and e.wait_since <= w.occurred_at
        returning e.*, ${q.unsafe(VERSION)}),
      t as (delete from timers where execution_id in (select id from r)),
      s as (update step_runs set status = 'COMPLETED', finished_at = now() where execution_id in (select id from r) and status = 'WAITING')
      select * from r`;
    return claimsOf(rows, token);
  },

  /**
   * Fires due timers: the waiting step run completes and the execution moves on along its TIMEOUT
   * edge. It locks the executions first (the order above) and SKIP LOCKED lets every replica poll
   * side by side without two of them firing one timer, and without waiting behind an event that is
   * resuming the same execution. `no key update` is the lock the update takes anyway, and unlike
   * `for update` it lets foreign-key checks (a step run inserted for the execution) through.
   * Only timers of executions still WAITING on the timer's step are taken: a timer exists only while
   * its execution waits on that step (block adds it in the statement that parks the execution;
   * resume, timeOut and cancel delete it where the wait ends), and when an execution changed after
   * this statement's snapshot, PostgreSQL re-checks the locked row's new version against the timer
   * as the snapshot saw it: one that meanwhile timed out elsewhere and now waits on a later step
   * must not take its old timer.
   */
  async timeOut(q: Q, limit: number, token: string, leaseMs: number): Promise<Claim[]> {
    const rows = await q<ClaimedRow[]>`
      with due as (
        select t.execution_id, t.step_id, coalesce(s.type = 'SEND_EMAIL', false) as rerun
        from timers t join executions e on e.id = t.execution_id left join steps s on s.id = t.step_id
        where t.due_at <= now() and e.status = 'WAITING' and e.current_step_id = t.step_id
        order by t.due_at limit ${limit}
        for no key update of e skip locked),
      x as (
        update executions e set status = 'RUNNING', wait_event = null, wait_since = null,
          lease_token = ${token}, lease_until = now() + ${lease(leaseMs)}::interval,
          current_step_id = ${q.unsafe(afterTimer("due"))}
        from due where e.id = due.execution_id
        returning e.*, ${q.unsafe(VERSION)}),
      t as (delete from timers where execution_id in (select id from x)),
      -- a held SEND_EMAIL's run goes on RUNNING (the step runs again, in the same run, and sends)
      runs as (
        update step_runs r set status = case when due.rerun then 'RUNNING' else 'COMPLETED' end,
          finished_at = case when due.rerun then null else now() end
        from due where r.execution_id = due.execution_id and r.step_id = due.step_id and r.status = 'WAITING')
      select * from x`;
    return claimsOf(rows, token);
  },
});
