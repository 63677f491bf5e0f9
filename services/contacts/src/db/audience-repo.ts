import type { CompiledFilter, ContactFacts } from "@mailroom/filters";
import { traced, type Q, type Row } from "@mailroom/kit";
import type { ContactRow } from "./contacts-repo.js";
import type { contactEvents, emailActivity } from "./schema.js";

/** A name's oldest and newest time (see `facts`). */
type Span = { first: Date; last: Date };

/** Below every UUID, so "after nothing" is the same query as "after this id". */
const NIL = "00000000-0000-0000-0000-000000000000";

export interface AudiencePage {
  afterId?: string | undefined;
  limit: number;
  subscribedOnly?: boolean;
}

/**
 * Reads over compiled filters (@mailroom/filters). `$1` and `$2` belong to the query, so every
 * filter passed here is compiled with `paramOffset: 2`.
 */
export const audienceRepo = traced("AudienceRepo", {
  /** A keyset page by id of the project's contacts matching `compiled` (all of them when null). */
  async page(q: Q, projectId: string, compiled: CompiledFilter | null, opts: AudiencePage): Promise<ContactRow[]> {
    const sub = opts.subscribedOnly ? "and c.subscribed" : "";
    return q.unsafe<ContactRow[]>(
      `select c.* from contacts c where c.project_id = $1::uuid and c.id > $2::uuid ${sub} and ${compiled?.text ?? "true"}
       order by c.id limit ${Number(opts.limit)}`,
      [projectId, opts.afterId ?? NIL, ...(compiled?.values ?? [])],
    );
  },

  /**
   * A keyset page of a tracked segment's recorded members, driven by the membership table (its
   * primary key is ordered by contact id), so a small segment of a large project reads few rows.
   */
  async members(q: Q, segmentId: string, compiled: CompiledFilter | null, opts: AudiencePage): Promise<ContactRow[]> {
    const sub = opts.subscribedOnly ? "and c.subscribed" : "";
    return q.unsafe<ContactRow[]>(
      `select c.* from segment_members m join contacts c on c.id = m.contact_id
       where m.segment_id = $1::uuid and m.contact_id > $2::uuid ${sub} and ${compiled?.text ?? "true"}
       order by m.contact_id limit ${Number(opts.limit)}`,
      [segmentId, opts.afterId ?? NIL, ...(compiled?.values ?? [])],
    );
  },

  /** Exact count of the project's contacts matching `compiled` (`paramOffset: 1`). */
  async count(q: Q, projectId: string, compiled: CompiledFilter): Promise<number> {
    const [row] = await q.unsafe<{ n: number }[]>(
      `select count(*)::int as n from contacts c where c.project_id = $1::uuid and ${compiled.text}`,
      [projectId, ...compiled.values],
    );
    return row?.n ?? 0;
  },

  /**
   * What the in-memory evaluator needs about one contact, for the event names and activity kinds the
   * evaluated segments read. Per name only the oldest and the newest time are loaded: every activity
   * operator asks "any row", "any row after a cut" (the newest decides) or "any row before a cut" (the
   * oldest decides), so a contact with ten thousand page views costs two rows, not ten thousand.
   */
  async facts(
    q: Q,
    contact: ContactRow,
    reads: { events: readonly string[]; emailKinds: readonly string[] },
  ): Promise<Omit<ContactFacts, "segments">> {
    const [events, activity] = await Promise.all([
      reads.events.length === 0
        ? []
        : q<Array<Pick<Row<typeof contactEvents>, "name"> & Span>>`
            select name, min(created_at) as first, max(created_at) as last from contact_events
            where contact_id = ${contact.id} and name = any(${reads.events}::text[]) group by name`,
      reads.emailKinds.length === 0
        ? []
        : q<Array<Pick<Row<typeof emailActivity>, "kind"> & Span>>`
            select kind, min(occurred_at) as first, max(occurred_at) as last from email_activity
            where contact_id = ${contact.id} and kind = any(${reads.emailKinds}::text[]) group by kind`,
    ]);
    return {
      email: contact.email,
      subscribed: contact.subscribed,
      createdAt: contact.created_at,
      updatedAt: contact.updated_at,
      data: contact.data,
      topics: contact.topics,
      events: events.flatMap((e) => [
        { name: e.name, createdAt: e.first },
        { name: e.name, createdAt: e.last },
      ]),
      emailActivity: activity.flatMap((a) => [
        { kind: a.kind, occurredAt: a.first },
        { kind: a.kind, occurredAt: a.last },
      ]),
    };
  },
});
