import { iso, json, outboxInsert, traced, type Q, type Row } from "@mailroom/kit";
import type { EventRow } from "./events-repo.js";
import type { contacts } from "./schema.js";

export type ContactRow = Row<typeof contacts>;

/** `like` pattern for a substring, with the pattern characters of the search escaped. */
export function containsPattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A row of `createOrReadMany`: created by it (and `tracked`: its change was written), or read. */
export interface CreatedOrRead {
  row: ContactRow;
  created: boolean;
  tracked: boolean;
}

export const readCreatedOrRead = (rows: Array<ContactRow & { created: boolean; tracked: boolean }>): CreatedOrRead[] =>
  rows.map(({ created, tracked, ...row }) => ({ row, created, tracked }));

/**
 * `contactsRepo.createOrReadMany`'s statement, not started (for kit `inOneRoundTrip`); read its rows
 * with `readCreatedOrRead`. Outside the traced repository on purpose: `traced` awaits what a method
 * returns, which would start the query on its own.
 */
export function createOrReadManyStatement(q: Q, rows: ContactRow[], outbox = "[]") {
  const given = json(rows); // timestamps as ISO text: a Date's JSON
  return q<Array<ContactRow & { created: boolean; tracked: boolean }>>`
    with v as (
      select * from jsonb_to_recordset(${given}::jsonb)
        as v(id uuid, project_id uuid, email text, subscribed boolean, data jsonb, topics jsonb, created_at timestamptz, updated_at timestamptz)),
    c as (
      insert into contacts (id, project_id, email, subscribed, data, topics, created_at, updated_at)
      select id, project_id, email, subscribed, data, coalesce(topics, '{}'::jsonb), created_at, updated_at from v
      -- in address order: two calls inserting the same addresses wait on each other, never deadlock
      order by lower(email), project_id
      on conflict (project_id, lower(email)) do nothing
      returning *),
    t as (select distinct project_id from segments where project_id in (select project_id from c) and track_membership),
    o as (${outboxInsert(q, outbox)} where m.owner in (select id from c where project_id in (select project_id from t)))
    select c.*, true as created, c.project_id in (select project_id from t) as tracked from c
    union all
    select x.*, false, false from v join contacts x on x.project_id = v.project_id and lower(x.email) = lower(v.email)
    where v.id not in (select id from c)`;
}

/** Every query is scoped by project: an id of another project is simply not found. */
export const contactsRepo = traced("ContactsRepo", {
  async byId(q: Q, projectId: string, id: string, lock = false): Promise<ContactRow | null> {
    const rows = lock
      ? await q<ContactRow[]>`select * from contacts where project_id = ${projectId} and id = ${id} for update`
      : await q<ContactRow[]>`select * from contacts where project_id = ${projectId} and id = ${id}`;
    return rows[0] ?? null;
  },

  async byEmail(q: Q, projectId: string, email: string, lock = false): Promise<ContactRow | null> {
    const rows = lock
      ? await q<ContactRow[]>`select * from contacts where project_id = ${projectId} and lower(email) = lower(${email}) for update`
      : await q<ContactRow[]>`select * from contacts where project_id = ${projectId} and lower(email) = lower(${email})`;
    return rows[0] ?? null;
  },

  /** Inserts unless the address exists (a concurrent upsert won): null then. */
  async insertIfAbsent(q: Q, row: ContactRow): Promise<ContactRow | null> {
    const rows = await q<ContactRow[]>`
      insert into contacts (id, project_id, email, subscribed, data, topics, created_at, updated_at)
      values (${row.id}, ${row.project_id}, ${row.email}, ${row.subscribed}, ${json(row.data)}::jsonb, ${json(row.topics)}::jsonb, ${iso(row.created_at)}, ${iso(row.updated_at)})
      on conflict (project_id, lower(email)) do nothing
      returning *`;
    return rows[0] ?? null;
  },

  /**
   * A new contact in one statement, with no transaction: the row, its event record when tracking,
   * and the outbox rows of the write (`outbox`, kit `outboxRows`), each written only along with the
   * contact. When the address exists nothing is written and that contact is returned as it is (not
   * locked); null only when a concurrent write created it after this statement's snapshot.
   */
  async createOrRead(q: Q, row: ContactRow, event: EventRow | null, outbox: string): Promise<{ row: ContactRow; created: boolean } | null> {
    const record = event
      ? q`, e as (
          insert into contact_events (id, project_id, contact_id, name, data, created_at)
          select ${event.id}, c.project_id, c.id, ${event.name}, ${json(event.data)}::jsonb, ${iso(event.created_at)} from c)`
      : q``;
    const rows = await q<Array<ContactRow & { created: boolean }>>`
      with c as (
        insert into contacts (id, project_id, email, subscribed, data, topics, created_at, updated_at)
        values (${row.id}, ${row.project_id}, ${row.email}, ${row.subscribed}, ${json(row.data)}::jsonb, ${json(row.topics)}::jsonb, ${iso(row.created_at)}, ${iso(row.updated_at)})
        on conflict (project_id, lower(email)) do nothing
        returning *)
      ${record},
      o as (${outboxInsert(q, outbox)} where exists (select 1 from c))
      select c.*, true as created from c
      union all
      select x.*, false from contacts x
      where x.project_id = ${row.project_id} and lower(x.email) = lower(${row.email}) and not exists (select 1 from c)`;
    const [first] = rows;
    if (!first) return null;
    const { created, ...contact } = first;
    return { row: contact, created };
  },

  /**
   * `createOrRead` for several addresses in one statement: each new one is created, each existing
   * one comes back as it is. An address missing from the answer was created after this statement's
   * snapshot, concurrently or by an earlier row of the same address in `rows`. `outbox` holds
   * messages owned by the new rows' ids (kit `outboxRows`); a row's are written if it is created in
   * a project that tracks a segment (`tracked`), as read in this statement's snapshot.
   */
  async createOrReadMany(q: Q, rows: ContactRow[], outbox = "[]"): Promise<CreatedOrRead[]> {
    return readCreatedOrRead(await createOrReadManyStatement(q, rows, outbox));
  },

  /**
   * New contacts of one project, all created at `at` (a CSV import batch), in one statement. The
   * columns go as arrays (unnest), `data` and `topics` as JSON arrays: PostgreSQL took a quarter
   * more CPU for the same rows as one JSON document of rows (jsonb_to_recordset), and JSON arrays
   * cost this process a quarter of what text arrays of JSON do to escape. Project and time are one
   * value for all. A plain insert: an address another writer took meanwhile fails it with
   * unique_violation (the caller's batch runs again), where `on conflict` checked every row for a
   * conflict first. In address order: two writers inserting the same addresses wait on each other,
   * never deadlock.
   */
  async insertNew(q: Q, projectId: string, at: Date, rows: Array<Pick<ContactRow, "id" | "email" | "subscribed" | "data" | "topics">>): Promise<void> {
    if (rows.length === 0) return;
    const elements = (values: unknown[]) => q`array(select e from jsonb_array_elements(${json(values)}::jsonb) with ordinality as x(e, i) order by i)`;
    await q`
      insert into contacts (id, project_id, email, subscribed, data, topics, created_at, updated_at)
      select v.id, ${projectId}, v.email, v.subscribed, v.data, v.topics, ${iso(at)}, ${iso(at)}
      from unnest(
        ${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.email)}::text[], ${rows.map((r) => (r.subscribed ? "t" : "f"))}::text[]::boolean[],
        ${elements(rows.map((r) => r.data))}, ${elements(rows.map((r) => r.topics))}
      ) as v(id, email, subscribed, data, topics)
      order by lower(v.email)`;
  },

  async update(q: Q, row: ContactRow): Promise<ContactRow> {
    const [updated] = await q<ContactRow[]>`
      update contacts set email = ${row.email}, subscribed = ${row.subscribed}, data = ${json(row.data)}::jsonb,
        topics = ${json(row.topics)}::jsonb, updated_at = ${iso(row.updated_at)}
      where project_id = ${row.project_id} and id = ${row.id}
      returning *`;
    return updated!;
  },

  async delete(q: Q, projectId: string, id: string): Promise<ContactRow | null> {
    const rows = await q<ContactRow[]>`delete from contacts where project_id = ${projectId} and id = ${id} returning *`;
    return rows[0] ?? null;
  },

  /** One keyset page by id; asks for one extra row to learn whether more follow. */
  async list(q: Q, projectId: string, opts: { afterId?: string; limit: number; search?: string; subscribedOnly?: boolean }) {
    const after = opts.afterId ? q`and id > ${opts.afterId}` : q``;
    const search = opts.search ? q`and lower(email) like ${containsPattern(opts.search)}` : q``;
    const subscribed = opts.subscribedOnly ? q`and subscribed` : q``;
    return q<ContactRow[]>`
      select * from contacts where project_id = ${projectId} ${after} ${search} ${subscribed}
      order by id limit ${opts.limit}`;
  },

  /** Exact count of the project's (matching) contacts; served by the (project_id, id) index. */
  async count(q: Q, projectId: string, search?: string): Promise<number> {
    const filter = search ? q`and lower(email) like ${containsPattern(search)}` : q``;
    const [row] = await q<{ n: number }[]>`select count(*)::int as n from contacts where project_id = ${projectId} ${filter}`;
    return row?.n ?? 0;
  },

  /** The data of the project's newest contacts by id (ids are time-ordered), for sampling its keys. */
  async recentData(q: Q, projectId: string, limit: number): Promise<Record<string, unknown>[]> {
    const rows = await q<{ data: Record<string, unknown> }[]>`
      select data from contacts where project_id = ${projectId} order by id desc limit ${limit}`;
    return rows.map((r) => r.data);
  },
});
