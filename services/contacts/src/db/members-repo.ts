import type { CompiledFilter } from "@mailroom/filters";
import { isId, iso, traced, type Q, type Row } from "@mailroom/kit";
import type { segmentDue, segments } from "./schema.js";

/**
 * Advisory-lock classes (the two-key form, whose key space never meets the one-key form the
 * migrator uses). Collisions of the 32-bit hashes only serialize a little more than needed.
 */
const PROJECT_LOCK = 7301;
const CONTACT_LOCK = 7302;

export type DueRow = Pick<Row<typeof segmentDue>, "segment_id" | "contact_id" | "project_id">;

/** Distinct, sorted (the order locks are taken in), and refused unless ids: they go into SQL text. */
function checkedIds(projectIds: string[]): string[] {
  const ids = [...new Set(projectIds)].sort();
  for (const id of ids) if (!isId(id)) throw new Error(`not an id: ${id}`);
  return ids;
}

/** One statement taking the projects' locks shared, in the order given. */
function sharedLocksSql(ids: string[]): string {
  return `select ${ids.map((id) => `pg_advisory_xact_lock_shared(${PROJECT_LOCK}, hashtext('${id}'))`).join(", ")}`;
}

/**
 * The statement taking the projects' locks shared, as `locks.projectsTracking` does, for a
 * transaction whose next statement reads which of them track a segment (its snapshot is taken once
 * the locks are held). Not started: for kit `inOneRoundTrip`. Outside the traced `locks` on purpose:
 * `traced` awaits what a method returns, which would start the query on its own.
 */
export function projectsSharedStatement(q: Q, projectIds: string[]): Promise<unknown> {
  const ids = checkedIds(projectIds);
  return ids.length === 0 ? q`select` : q.unsafe(sharedLocksSql(ids));
}

export const locks = traced("Locks", {
  /**
   * Segment writes hold the project's lock exclusively and membership evaluations hold it shared
   * (`evaluation`), so they never interleave: an evaluation either finished before a definition
   * changed or reads the new one.
   */
  async projectExclusive(q: Q, projectId: string): Promise<void> {
    await q`select pg_advisory_xact_lock(${PROJECT_LOCK}, hashtext(${projectId}))`;
  },
  /** One evaluation of a contact at a time across replicas; each reads the state committed before it. */
  async contact(q: Q, contactId: string): Promise<void> {
    await q`select pg_advisory_xact_lock(${CONTACT_LOCK}, hashtext(${contactId}))`;
  },
  /**
   * Whether projects track any segment, as an evaluation would see it: the read runs after the
   * project's lock is held shared, so a segment write under way has committed first. One round trip:
   * two statements in one simple query (one implicit transaction, so the lock lasts until the read,
   * and a statement of its own, so the read's snapshot is taken after the lock). A simple query takes
   * no parameters, so the ids go in as text, checked first; they are locked in sorted order.
   * Answers, for several projects at once, the ones that track.
   */
  async projectsTracking(q: Q, projectIds: string[]): Promise<Set<string>> {
    const ids = checkedIds(projectIds);
    if (ids.length === 0) return new Set();
    const list = ids.map((id) => `'${id}'`).join(", ");
    const [, rows] = (await q
      .unsafe(
        `${sharedLocksSql(ids)};
         select distinct project_id from segments where project_id in (${list}) and track_membership`,
      )
      .simple()) as unknown as [unknown, { project_id: string }[]];
    return new Set(rows.map((r) => r.project_id));
  },
  /** Both of an evaluation's locks in one round trip: the project's shared, then the contact's. */
  async evaluation(q: Q, projectId: string, contactId: string): Promise<void> {
    await q`select pg_advisory_xact_lock_shared(${PROJECT_LOCK}, hashtext(${projectId})),
                   pg_advisory_xact_lock(${CONTACT_LOCK}, hashtext(${contactId}))`;
  },
});

export const membersRepo = traced("MembersRepo", {
  async ofContact(q: Q, contactId: string): Promise<Set<string>> {
    const rows = await q<{ segment_id: string }[]>`select segment_id from segment_members where contact_id = ${contactId}`;
    return new Set(rows.map((r) => r.segment_id));
  },

  /** The tracked segments a contact is in, for its exit events when it is deleted. */
  async segmentsOfContact(q: Q, projectId: string, contactId: string) {
    return q<Pick<Row<typeof segments>, "id" | "name" | "slug">[]>`
      select s.id, s.name, s.slug from segment_members m join segments s on s.id = m.segment_id
      where m.contact_id = ${contactId} and s.project_id = ${projectId} order by s.id`;
  },

  /** True when the row is new: the membership row is what makes a redelivered change emit nothing. */
  async add(q: Q, segmentId: string, contactId: string, projectId: string, at: Date): Promise<boolean> {
    const rows = await q`
      insert into segment_members (segment_id, contact_id, project_id, entered_at)
      values (${segmentId}, ${contactId}, ${projectId}, ${iso(at)})
      on conflict do nothing returning segment_id`;
    return rows.length > 0;
  },

  async remove(q: Q, segmentId: string, contactId: string): Promise<boolean> {
    const rows = await q`delete from segment_members where segment_id = ${segmentId} and contact_id = ${contactId} returning segment_id`;
    return rows.length > 0;
  },

  async count(q: Q, segmentId: string): Promise<number> {
    const [row] = await q<{ n: number }[]>`select count(*)::int as n from segment_members where segment_id = ${segmentId}`;
    return row?.n ?? 0;
  },

  /**
   * Makes the stored members exactly the contacts matching `compiled` (compiled with `paramOffset: 2`), without
   * touching rows that stay, so their `entered_at` is kept. No events: this is how a definition is
   * (re-)recorded.
   */
  async record(q: Q, segmentId: string, projectId: string, compiled: CompiledFilter, at: Date): Promise<void> {
    const f = compiled;
    await q.unsafe(
      `delete from segment_members m where m.segment_id = $1::uuid and not exists (
         select 1 from contacts c where c.id = m.contact_id and c.project_id = $2::uuid and ${f.text})`,
      [segmentId, projectId, ...f.values],
    );
    await q.unsafe(
      `insert into segment_members (segment_id, contact_id, project_id, entered_at)
       select $1::uuid, c.id, c.project_id, $${f.values.length + 3}::timestamptz from contacts c
       where c.project_id = $2::uuid and ${f.text}
       on conflict do nothing`,
      [segmentId, projectId, ...f.values, iso(at)],
    );
  },

  /** Members and due times of a segment that is no longer tracked. */
  async clear(q: Q, segmentId: string): Promise<void> {
    await q`delete from segment_members where segment_id = ${segmentId}`;
    await q`delete from segment_due where segment_id = ${segmentId}`;
  },
});

export const dueRepo = traced("DueRepo", {
  /** The contact's due times by segment id. */
  async ofContact(q: Q, contactId: string): Promise<Map<string, number>> {
    const rows = await q<Pick<Row<typeof segmentDue>, "segment_id" | "due_at">[]>`select segment_id, due_at from segment_due where contact_id = ${contactId}`;
    return new Map(rows.map((r) => [r.segment_id, r.due_at.getTime()]));
  },

  /**
   * Sets (a Date) or removes (null) the contact's due time of each segment, in two statements at most.
   * Arrays cross as text[] (times as ISO text) and are cast on the server, so the statement does not
   * depend on the client's serializers for uuid and timestamp arrays.
   */
  async set(q: Q, projectId: string, contactId: string, due: ReadonlyMap<string, Date | null>): Promise<void> {
    const gone = [...due].filter(([, at]) => at === null).map(([id]) => id);
    const set = [...due].filter((e): e is [string, Date] => e[1] !== null);
    if (gone.length > 0) await q`delete from segment_due where contact_id = ${contactId} and segment_id = any(${gone}::text[]::uuid[])`;
    if (set.length === 0) return;
    await q`
      insert into segment_due (segment_id, contact_id, project_id, due_at)
      select s, ${contactId}, ${projectId}, d from unnest(${set.map(([id]) => id)}::text[]::uuid[], ${set.map(([, at]) => iso(at))}::text[]::timestamptz[]) as t(s, d)
      on conflict (segment_id, contact_id) do update set due_at = excluded.due_at`;
  },

  /**
   * Replaces a segment's due times with "now" for every contact matching `near AND ifTrue AND NOT
   * ifFalse` (each compiled with its own `paramOffset`: 2, then after the previous one's values), the
   * contacts whose answer can change with time; the scheduler then evaluates each, which stores its
   * real next boundary.
   */
  async seed(q: Q, segmentId: string, projectId: string, parts: { near: CompiledFilter; ifTrue?: CompiledFilter; ifFalse?: CompiledFilter } | null): Promise<void> {
    await q`delete from segment_due where segment_id = ${segmentId}`;
    if (!parts) return;
    const { near, ifTrue, ifFalse } = parts;
    const flips = ifTrue && ifFalse ? `and ${ifTrue.text} and not ${ifFalse.text}` : "";
    await q.unsafe(
      `insert into segment_due (segment_id, contact_id, project_id, due_at)
       select $1::uuid, c.id, c.project_id, now() from contacts c where c.project_id = $2::uuid and ${near.text} ${flips}`,
      [segmentId, projectId, ...near.values, ...(ifTrue?.values ?? []), ...(ifFalse?.values ?? [])],
    );
  },

  /**
   * Claims due rows for this replica: pushes their due time out by a lease, so other replicas skip
   * them (SKIP LOCKED while the claim runs, the later time after). The evaluation then stores the
   * real next boundary or deletes the row; if this replica dies first, the lease runs out and
   * another one takes them.
   */
  async claim(q: Q, limit: number, leaseMs: number): Promise<DueRow[]> {
    return q<DueRow[]>`
      update segment_due d set due_at = now() + ${leaseMs} * interval '1 millisecond'
      from (select segment_id, contact_id from segment_due where due_at <= now()
            order by due_at limit ${limit} for update skip locked) x
      where d.segment_id = x.segment_id and d.contact_id = x.contact_id
      returning d.segment_id, d.contact_id, d.project_id`;
  },
});
