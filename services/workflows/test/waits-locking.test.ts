import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { migrate, openDatabase, serviceDatabaseUrl, type Sql } from "@mailroom/kit";
import { DATABASE_URL, dropDatabases, runPrefix } from "@mailroom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Claim } from "../src/db/claims.js";
import { type ResumeEvent, waitsRepo } from "../src/db/waits-repo.js";

/**
 * The two statements that end a wait, many at once on the same executions, on a database of its own
 * (no service polls it, so every claim is the test's). Resume and timeout used to lock an
 * execution's row and its timer in opposite orders, and PostgreSQL aborted one of a pair with a
 * deadlock (40P01) when an event came as the wait timed out: 49 rounds of 60 had one, so the six
 * rounds here all but never pass on those statements.
 */
const prefix = runPrefix("waits");
const url = serviceDatabaseUrl(DATABASE_URL, prefix, "workflows");
/** Executions per round; every one has its event in each resume call and its timer due. */
const N = 60;
/** Resume calls and timeOut calls per round, all at once. */
const CALLS = 8;
const ROUNDS = 6;
const EVENT = "paid";

let db: Sql;
const ids = { project: randomUUID(), workflow: randomUUID(), wait: randomUUID(), onEvent: randomUUID(), onTimeout: randomUUID() };

beforeAll(async () => {
  await migrate(url, "workflows", fileURLToPath(new URL("../drizzle", import.meta.url)));
  // one connection per call, so they all run at once
  db = openDatabase(url, { max: 2 * CALLS });
  const { project, workflow, wait, onEvent, onTimeout } = ids;
  await db`insert into workflows (id, project_id, name, enabled, trigger_type, trigger_config, trigger_event, created_at, updated_at)
    values (${workflow}, ${project}, 'race', true, 'EVENT', '{}', 'start', now(), now())`;
  await db`insert into steps (id, workflow_id, type, name, config, position) values
    (${wait}, ${workflow}, 'WAIT_FOR_EVENT', 'wait', '{}', '{}'),
    (${onEvent}, ${workflow}, 'EXIT', 'event', '{}', '{}'),
    (${onTimeout}, ${workflow}, 'EXIT', 'timeout', '{}', '{}')`;
  await db`insert into transitions (id, workflow_id, from_step_id, to_step_id, wait_outcome) values
    (${randomUUID()}, ${workflow}, ${wait}, ${onEvent}, 'EVENT'),
    (${randomUUID()}, ${workflow}, ${wait}, ${onTimeout}, 'TIMEOUT')`;
});

afterAll(async () => {
  await db?.end({ timeout: 1 });
  await dropDatabases(DATABASE_URL, prefix);
});

/** N executions WAITING on the wait step for EVENT since a minute ago, each with its timer due. */
async function waiting(): Promise<Array<{ id: string; contactId: string }>> {
  const rows = Array.from({ length: N }, () => ({ id: randomUUID(), contactId: randomUUID() }));
  const execIds = rows.map((r) => r.id);
  await db`insert into executions (id, project_id, workflow_id, contact_id, status, context, current_step_id, wait_event, wait_since, started_at)
    select id, ${ids.project}, ${ids.workflow}, contact_id, 'WAITING', '{}', ${ids.wait}, ${EVENT}, now() - interval '1 minute', now()
    from unnest(${execIds}::uuid[], ${rows.map((r) => r.contactId)}::uuid[]) as t(id, contact_id)`;
  await db`insert into step_runs (id, execution_id, step_id, status, started_at)
    select gen_random_uuid(), id, ${ids.wait}, 'WAITING', now() from unnest(${execIds}::uuid[]) as t(id)`;
  await db`insert into timers (execution_id, step_id, due_at)
    select id, ${ids.wait}, now() - interval '1 second' from unnest(${execIds}::uuid[]) as t(id)`;
  return rows;
}

const shuffled = <T>(xs: T[]): T[] => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

describe("ending waits concurrently", () => {
  it("resume and timeOut racing on the same executions never deadlock, and each execution moves once", { timeout: 120_000 }, async () => {
    const outcomes = new Set<"EVENT" | "TIMEOUT">();
    for (let round = 0; round < ROUNDS; round++) {
      const execs = await waiting();
      const occurredAt = new Date().toISOString();
      const events: ResumeEvent[] = execs.map((e) => ({ projectId: ids.project, contactId: e.contactId, name: EVENT, occurredAt, data: { paid: true } }));
      // each event batch in its own order, as the trigger consumer's batches arrive
      const calls: Array<Promise<{ by: "EVENT" | "TIMEOUT"; claims: Claim[] }>> = [];
      // Each batch has a random half of the events and each poll takes an eighth of the timers, so
      // neither kind takes every execution before the other starts: both ways of ending are raced.
      for (let i = 0; i < CALLS; i++) {
        calls.push(waitsRepo.timeOut(db, Math.ceil(N / CALLS), randomUUID(), 0).then((claims) => ({ by: "TIMEOUT", claims })));
        calls.push(waitsRepo.resume(db, shuffled(events).slice(0, N / 2), randomUUID(), 0).then((claims) => ({ by: "EVENT", claims })));
      }
      // and a poll with room for every timer, for what the others leave (an event in no batch)
      calls.push(waitsRepo.timeOut(db, N, randomUUID(), 0).then((claims) => ({ by: "TIMEOUT", claims })));
      const settled = await Promise.allSettled(calls);
      const failures: string[] = [];
      for (const s of settled) {
        if (s.status === "rejected") failures.push(`round ${round}: ${(s.reason as { code?: string }).code} ${(s.reason as Error).message}`);
      }
      expect(failures, "no statement failed (40P01: deadlock)").toEqual([]);

      // every execution claimed by exactly one call: the event or the timer, never both
      const movedBy = new Map<string, "EVENT" | "TIMEOUT">();
      for (const s of settled) {
        if (s.status !== "fulfilled") continue;
        for (const c of s.value.claims) {
          expect(movedBy.has(c.id), `execution ${c.id} moved twice`).toBe(false);
          movedBy.set(c.id, s.value.by);
        }
      }
      expect([...movedBy.keys()].sort()).toEqual(execs.map((e) => e.id).sort());
      for (const by of movedBy.values()) outcomes.add(by);

      // and the rows agree with the claims: the edge of the way the wait ended, the event's data only if resumed
      const rows = await db<Array<{ id: string; status: string; current_step_id: string; paid: boolean | null; run: string; timers: number }>>`
        select e.id, e.status, e.current_step_id, (e.context->'event'->>'paid')::boolean as paid,
          (select r.status from step_runs r where r.execution_id = e.id and r.step_id = ${ids.wait}) as run,
          (select count(*)::int from timers t where t.execution_id = e.id) as timers
        from executions e where e.id = any(${execs.map((e) => e.id)}::uuid[])`;
      expect(rows).toHaveLength(N);
      for (const r of rows) {
        const by = movedBy.get(r.id);
        expect(r).toEqual({
          id: r.id,
          status: "RUNNING",
          current_step_id: by === "EVENT" ? ids.onEvent : ids.onTimeout,
          paid: by === "EVENT" ? true : null,
          run: "COMPLETED",
          timers: 0,
        });
      }
    }
    // the race took place: a round is sometimes won whole by one side, not every round by the same one
    expect([...outcomes].sort(), "some waits resumed, some timed out").toEqual(["EVENT", "TIMEOUT"]);
  });
});
