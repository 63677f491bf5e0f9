import type { EventEnvelope } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";
import { activityRepo, type ActivityRow } from "../db/activity-repo.js";
import { locks } from "../db/members-repo.js";
import { emailActivityOf, type EmailActivity } from "../domain/email-activity.js";
import type { UnsubscribeReason } from "../domain/subscription.js";
import type { Writer } from "./writer.js";

interface Candidate {
  event: EventEnvelope;
  activity: EmailActivity;
  /** The ids as PostgreSQL returns them (lower case), so rows it returns match up with them. */
  projectId: string;
  contactId: string;
  emailId: string;
}

const contactKey = (projectId: string, contactId: string) => `${projectId}/${contactId}`;
const activityKey = (emailId: string, kind: string) => `${emailId}/${kind}`;

/**
 * The email_activity projection of the sending service's email events, and the automatic
 * unsubscription after a permanent bounce or a complaint. A batch of events is applied in one
 * transaction with set-based statements (at campaign rates one transaction per event was the
 * contacts service's main cost), with the outcome of applying them one by one in order:
 * - an event already applied (a redelivery), or twice in the batch, changes nothing the second time:
 *   its activity row exists, and an unsubscribing event's id is kept (consumed_events);
 * - the first occurrence per email and kind is the activity row, and emits one `activity` contact
 *   change (`email.<kind>`) for the segment tracker, if its project tracks a segment;
 * - an event for a contact that is not in its project (deleted since, or a foreign id) is consumed
 *   and changes nothing;
 * - an unsubscribing event unsubscribes a subscribed contact once, with the reason of the first
 *   such event, emitting `contact.unsubscribed` and, if its project tracks a segment, an `updated`
 *   change of `subscribed`.
 *
 * Contact changes only feed the segment tracker, which drops those of projects that track no segment
 * (most projects, and every event of a campaign to them: two changes per email through the outbox,
 * the stream and the tracker's probe, for nothing). The transaction asks first, under the projects'
 * shared lock, as an evaluation does: a segment write committed before it is seen, and one that
 * comes after waits for this commit and records its members from the rows written here.
 */
export class EmailActivityProjection {
  constructor(
    private readonly writer: Writer,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async apply(events: EventEnvelope[]): Promise<void> {
    const candidates = events.flatMap((event): Candidate[] => {
      const activity = emailActivityOf(event);
      if (!activity || !isId(event.projectId) || !isId(event.contactId) || !isId(activity.emailId)) return [];
      const lower = { projectId: event.projectId.toLowerCase(), contactId: (event.contactId as string).toLowerCase() };
      return [{ event, activity, ...lower, emailId: activity.emailId.toLowerCase() }];
    });
    if (candidates.length === 0) return;
    await this.writer.run(async (tx, out) => {
      const tracking = await locks.projectsTracking(tx, candidates.map((c) => c.projectId));
      // Only an unsubscribing event needs its id kept: the activity row's key already makes every
      // other one count once, and at campaign rates a kept id per email event was a row per event.
      const fresh = await activityRepo.markConsumed(tx, candidates.filter((c) => c.activity.unsubscribe).map((c) => c.event.id));
      const todo = candidates.filter((c) => !c.activity.unsubscribe || fresh.delete(c.event.id)); // unsubscribing: once per id
      if (todo.length === 0) return;
      const now = this.clock();

      const rows: ActivityRow[] = todo.map(({ event, activity, projectId, contactId, emailId }) => ({
        project_id: projectId,
        contact_id: contactId,
        email_id: emailId,
        kind: activity.kind,
        occurred_at: Number.isNaN(Date.parse(event.occurredAt)) ? now : new Date(event.occurredAt),
      }));
      const recorded = new Map(
        (await activityRepo.record(tx, rows)).map((r) => [activityKey(r.email_id, r.kind), contactKey(r.project_id, r.contact_id)]),
      );
      // In batch order; the change carries only the ids, as the tracker reads the contact itself.
      for (const r of rows) {
        const key = activityKey(r.email_id, r.kind);
        if (recorded.get(key) !== contactKey(r.project_id, r.contact_id)) continue;
        recorded.delete(key);
        if (tracking.has(r.project_id)) out.change({ project_id: r.project_id, id: r.contact_id }, "activity", [`email.${r.kind}`], now);
      }

      const reasons = new Map<string, { projectId: string; contactId: string; reason: UnsubscribeReason }>();
      for (const { activity, projectId, contactId } of todo) {
        const key = contactKey(projectId, contactId);
        if (activity.unsubscribe && !reasons.has(key)) reasons.set(key, { projectId, contactId, reason: activity.unsubscribe });
      }
      for (const row of await activityRepo.unsubscribe(tx, [...reasons.values()], now)) {
        out.subscription(row, "contact.unsubscribed", now, reasons.get(contactKey(row.project_id, row.id))?.reason);
        if (tracking.has(row.project_id)) out.change(row, "updated", ["subscribed"], now);
      }
    });
  }
}
