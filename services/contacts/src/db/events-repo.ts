import { iso, json, outboxInsert, traced, type Q, type Row } from "@mailroom/kit";
import type { ContactEvent } from "@mailroom/contracts";
import type { contactEvents } from "./schema.js";

export type EventRow = Row<typeof contactEvents>;

export function toContactEvent(r: EventRow): ContactEvent {
  return { id: r.id, name: r.name, data: r.data, createdAt: iso(r.created_at) };
}

/** Bound on GET /events/names: a project with more distinct names gets the first ones by name. */
export const MAX_EVENT_NAMES = 1000;

export const eventsRepo = traced("EventsRepo", {
  async insert(q: Q, row: EventRow): Promise<void> {
    await q`
      insert into contact_events (id, project_id, contact_id, name, data, created_at)
      values (${row.id}, ${row.project_id}, ${row.contact_id}, ${row.name}, ${json(row.data)}::jsonb, ${iso(row.created_at)})`;
  },

  /**
   * The event record and the outbox rows of the write (kit `outboxRows`) in one statement, if the
   * contact still exists: false, and nothing written, when it does not.
   */
  async insertIfContact(q: Q, row: EventRow, outbox: string): Promise<boolean> {
    const rows = await q`
      with e as (
        insert into contact_events (id, project_id, contact_id, name, data, created_at)
        select ${row.id}, ${row.project_id}, ${row.contact_id}, ${row.name}, ${json(row.data)}::jsonb, ${iso(row.created_at)}
        where exists (select 1 from contacts where project_id = ${row.project_id} and id = ${row.contact_id})
        returning id),
      o as (${outboxInsert(q, outbox)} where exists (select 1 from e))
      select id from e`;
    return rows.length > 0;
  },

  async get(q: Q, projectId: string, id: string): Promise<EventRow | null> {
    const rows = await q<EventRow[]>`select * from contact_events where project_id = ${projectId} and id = ${id}`;
    return rows[0] ?? null;
  },

  /** Newest first, keyset by id (UUIDv7, so id order is creation order). */
  async listForContact(q: Q, projectId: string, contactId: string, opts: { beforeId?: string; limit: number }) {
    const before = opts.beforeId ? q`and id < ${opts.beforeId}` : q``;
    return q<EventRow[]>`
      select * from contact_events where contact_id = ${contactId} and project_id = ${projectId} ${before}
      order by id desc limit ${opts.limit}`;
  },

  /**
   * Distinct names by a loose index scan over (project_id, name): one index probe per name, so
   * the cost follows the number of names, not the millions of events behind them.
   */
  async names(q: Q, projectId: string): Promise<string[]> {
    const rows = await q<{ name: string }[]>`
      with recursive names(name, n) as (
        (select name, 1 from contact_events where project_id = ${projectId} order by name limit 1)
        union all
        select (select e.name from contact_events e where e.project_id = ${projectId} and e.name > names.name
                order by e.name limit 1), n + 1
        from names where names.name is not null and n < ${MAX_EVENT_NAMES}
      )
      select name from names where name is not null`;
    return rows.map((r) => r.name);
  },
});
