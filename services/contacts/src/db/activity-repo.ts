import { traced } from "@mailroom/kit";
import { iso, type Q } from "./contacts-repo.js";
import type { ActivityKind } from "../domain/email-activity.js";

/** Consumed-event ids are kept past the EVENTS stream's 7-day max age, so no redelivery outlives them. */
const CONSUMED_RETENTION = "8 days";

export const activityRepo = traced("ActivityRepo", {
  /** Records the event id; false when it was already consumed (a redelivery). */
  async markConsumed(q: Q, eventId: string): Promise<boolean> {
    const rows = await q`insert into consumed_events (id) values (${eventId}) on conflict do nothing returning id`;
    return rows.length > 0;
  },

  /** First occurrence per email and kind wins; a later one changes nothing (false). */
  async record(q: Q, row: { projectId: string; contactId: string; emailId: string; kind: ActivityKind; occurredAt: Date }): Promise<boolean> {
    const rows = await q`
      insert into email_activity (project_id, contact_id, email_id, kind, occurred_at)
      values (${row.projectId}, ${row.contactId}, ${row.emailId}, ${row.kind}, ${iso(row.occurredAt)})
      on conflict (email_id, kind) do nothing returning kind`;
    return rows.length > 0;
  },

  async purgeConsumed(q: Q): Promise<void> {
    await q`delete from consumed_events where consumed_at < now() - ${CONSUMED_RETENTION}::interval`;
  },
});
