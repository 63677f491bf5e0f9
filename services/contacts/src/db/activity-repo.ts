import { iso, traced, type Q, type Row } from "@mailroom/kit";
import type { ContactRow } from "./contacts-repo.js";
import type { emailActivity } from "./schema.js";

/** Consumed-event ids are kept past the EVENTS stream's 7-day max age, so no redelivery outlives them. */
const CONSUMED_RETENTION = "8 days";

export type ActivityRow = Row<typeof emailActivity>;
type RecordedRow = Pick<ActivityRow, "project_id" | "contact_id" | "email_id" | "kind">;

export const activityRepo = traced("ActivityRepo", {
  /** Records the event ids; returns those not consumed before (the rest are redeliveries). */
  async markConsumed(q: Q, eventIds: string[]): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const rows = await q<{ id: string }[]>`
      insert into consumed_events (id) select distinct unnest(${eventIds}::text[])
      on conflict do nothing returning id`;
    return new Set(rows.map((r) => r.id));
  },

  /**
   * Activity rows of contacts that exist in the row's project (the join; others are skipped). The
   * first row per email and kind wins, an existing one first, then the earliest given, as if the
   * rows were inserted one by one in order. Returns the rows inserted.
   */
  async record(q: Q, rows: ActivityRow[]): Promise<RecordedRow[]> {
    if (rows.length === 0) return [];
    return q<RecordedRow[]>`
      insert into email_activity (project_id, contact_id, email_id, kind, occurred_at)
      select distinct on (t.e, t.k) t.p, t.c, t.e, t.k, t.at
      from unnest(${rows.map((r) => r.project_id)}::uuid[], ${rows.map((r) => r.contact_id)}::uuid[],
        ${rows.map((r) => r.email_id)}::uuid[], ${rows.map((r) => r.kind)}::text[],
        ${rows.map((r) => iso(r.occurred_at))}::text[]::timestamptz[]) with ordinality as t(p, c, e, k, at, n)
      join contacts on contacts.project_id = t.p and contacts.id = t.c
      order by t.e, t.k, t.n
      on conflict (email_id, kind) do nothing
      returning project_id, contact_id, email_id, kind`;
  },

  /**
   * Unsubscribes the contacts (of their own project) that are still subscribed and returns those,
   * as `setSubscription` would for each: the condition is checked under the row lock, so a
   * concurrent change is seen. Here because it is the projection's one write to contacts.
   */
  async unsubscribe(q: Q, contacts: Array<{ projectId: string; contactId: string }>, now: Date): Promise<ContactRow[]> {
    if (contacts.length === 0) return [];
    // Locked in id order, so two batches touching the same contacts do not deadlock each other.
    const sorted = [...contacts].sort((a, b) => (a.contactId < b.contactId ? -1 : a.contactId > b.contactId ? 1 : 0));
    return q<ContactRow[]>`
      update contacts set subscribed = false, updated_at = ${iso(now)}
      from unnest(${sorted.map((c) => c.projectId)}::uuid[], ${sorted.map((c) => c.contactId)}::uuid[]) as t(p, c)
      where contacts.project_id = t.p and contacts.id = t.c and contacts.subscribed
      returning contacts.*`;
  },

  async purgeConsumed(q: Q): Promise<void> {
    await q`delete from consumed_events where consumed_at < now() - ${CONSUMED_RETENTION}::interval`;
  },
});
