// locks.projectsTracking: the one-round-trip question the segment tracker asks for every change
// handled in a turn (services/contacts/src/usecases/tracker.ts, TrackingProbe).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { inOneRoundTrip, openDatabase, outboxRows } from "@mailroom/kit";
import { createOrReadManyStatement, readCreatedOrRead, type ContactRow } from "../src/db/contacts-repo.js";
import { locks, projectsSharedStatement } from "../src/db/members-repo.js";
import { contactsDb, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let tracking: Project;
let untracked: Project;
let plain: Project;
const db = contactsDb();
const second = contactsDb();
/** Watches the others from PostgreSQL's side: which backend waits for which lock. */
const watcher = contactsDb();
// opened as the service opens its own (kit): the repositories' JSON parameters rely on it
const serviceDb = (() => {
  const url = new URL(sharedPlatform().env.DATABASE_URL!);
  url.pathname = `/${sharedPlatform().prefix}_contacts`;
  return openDatabase(url.toString(), { max: 2 });
})();

beforeAll(async () => {
  [tracking, untracked, plain] = await Promise.all([newProject("probe-tracks"), newProject("probe-untracked"), newProject("probe-plain")]);
  const filters = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] };
  expect((await tracking.api.post("/segments", { name: "Tracked", filters, trackMembership: true })).status).toBe(201);
  expect((await untracked.api.post("/segments", { name: "Untracked", filters, trackMembership: false })).status).toBe(201);
});
afterAll(() => Promise.all([db.end(), second.end(), watcher.end(), serviceDb.end()]));

/**
 * A segment write under way: `locked`'s project lock held exclusively while the untracked project's
 * segment is turned to tracking, uncommitted until `run` calls `commit`. `blocked` resolves once
 * PostgreSQL shows another backend waiting for a lock the writer holds. Undone afterwards.
 */
async function duringSegmentWrite(
  locked: Project,
  run: (commit: () => Promise<void>, blocked: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const reserved = await db.reserve();
  try {
    const [writer] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
    await reserved`begin`;
    await locks.projectExclusive(reserved, locked.id);
    await reserved`update segments set track_membership = true where project_id = ${untracked.id}`;
    const blocked = () =>
      waitFor(async () => (await watcher`select 1 from pg_stat_activity where ${writer!.pid}::int = any(pg_blocking_pids(pid))`).length > 0, {
        what: `a query waiting for a lock of the segment writer (backend ${writer!.pid})`,
      });
    await run(async () => void (await reserved`commit`), blocked);
  } finally {
    await reserved`rollback`; // a no-op once committed; ends the transaction if `run` failed before
    await reserved`update segments set track_membership = false where project_id = ${untracked.id}`;
    reserved.release();
  }
}

/** Whether `p` has settled yet, asked at any later moment. */
function settled(p: Promise<unknown>): () => boolean {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

describe("locks.projectsTracking", () => {
  it("answers several projects in one query: only those with a tracked segment", async () => {
    const nobody = randomUUID();
    const got = await locks.projectsTracking(db, [plain.id, tracking.id, untracked.id, nobody, tracking.id]);
    expect([...got]).toEqual([tracking.id]);
    expect([...(await locks.projectsTracking(db, [untracked.id]))]).toEqual([]);
    expect(await locks.projectsTracking(db, [])).toEqual(new Set());
  });

  it("refuses anything that is not an id before it reaches SQL", async () => {
    await expect(locks.projectsTracking(db, [tracking.id, "x'); drop table segments; --"])).rejects.toThrow(/not an id/);
    expect([...(await locks.projectsTracking(db, [tracking.id]))]).toEqual([tracking.id]);
  });

  it("waits for a segment write holding the project's lock, then reads what it committed", async () => {
    await duringSegmentWrite(plain, async (commit, blocked) => {
      // plain's lock is held: the question for both projects waits for the writer's commit
      const asked = locks.projectsTracking(second, [plain.id, untracked.id]);
      const answered = settled(asked);
      await blocked();
      expect(answered()).toBe(false);
      await commit();
      expect([...(await asked)]).toEqual([untracked.id]);
    });
  });
});

// /v1/send's recipients (ContactsService.createOrReadMany): BEGIN, the projects' shared locks, the
// create-or-read with its changes and COMMIT in one round trip. A change is written for a created
// contact only where its project tracks a segment, read once the lock is held.
describe("creating contacts under the projects' shared lock", () => {
  const create = (project: Project) => {
    const now = new Date();
    const row: ContactRow = { id: randomUUID(), project_id: project.id, email: uniqueEmail("locked"), subscribed: false, data: {}, topics: {}, created_at: now, updated_at: now };
    const change = { id: randomUUID(), subject: "test.contact-change", payload: { contactId: row.id } };
    const { json } = outboxRows([change], [row.id]);
    const done = inOneRoundTrip(serviceDb, (tx) => [projectsSharedStatement(tx, [project.id]), createOrReadManyStatement(tx, [row], json)] as const);
    return { row, change, done: done.then(([, found]) => readCreatedOrRead(found)) };
  };
  const outboxHas = async (id: string) => (await second`select 1 from outbox where id = ${id}`).length === 1;

  it("writes no change where no segment is tracked, and one where a segment is", async () => {
    const quiet = create(untracked);
    expect(await quiet.done).toEqual([{ row: expect.objectContaining({ id: quiet.row.id }), created: true, tracked: false }]);
    expect(await outboxHas(quiet.change.id)).toBe(false);
    const watched = create(tracking);
    expect((await watched.done)[0]).toMatchObject({ created: true, tracked: true });
    expect(await outboxHas(watched.change.id)).toBe(true);
    await db`delete from outbox where id = ${watched.change.id}`;
  });

  it("waits for a segment write holding the project's lock, then writes the change that segment needs", async () => {
    await duringSegmentWrite(untracked, async (commit, blocked) => {
      const attempt = create(untracked);
      const answered = settled(attempt.done);
      await blocked();
      expect(answered()).toBe(false);
      // nothing of the waiting transaction is visible yet
      expect((await second`select 1 from contacts where id = ${attempt.row.id}`).length).toBe(0);
      await commit();
      expect((await attempt.done)[0]).toMatchObject({ created: true, tracked: true });
      expect(await outboxHas(attempt.change.id)).toBe(true);
      await second`delete from outbox where id = ${attempt.change.id}`;
    });
  });
});
