import type { Email, EmailEvent, EmailEventType, EventEnvelope } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";
import { recordedEventId } from "./events.js";
import type { STAT_COUNTERS } from "./stat-counters.js";

export type StatCounter = (typeof STAT_COUNTERS)[number];

/** One entry of an email's timeline, as email_events stores it. */
export interface TimelineEvent {
  /** The envelope's id: an event delivered twice is stored (and counted) once. */
  id: string;
  projectId: string;
  emailId: string;
  campaignId: string | null;
  type: Exclude<EmailEventType, "QUEUED">;
  /** The counter of /stats it moves (the first of its kind for its email only), or none. */
  counter: StatCounter | null;
  occurredAt: Date;
  details: Record<string, unknown>;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The events that can name an email of ours: every email event but email.received, and unsubscribes. */
export const TIMELINE_EVENT_NAMES: ReadonlySet<string> = new Set([
  "email.sent",
  "email.delivery",
  "email.open",
  "email.click",
  "email.bounce",
  "email.complaint",
  "email.failed",
  "contact.unsubscribed",
]);

/** Only what the timeline shows of each kind: the base fields are the email record's own. */
function kindOf(e: EventEnvelope): Pick<TimelineEvent, "type" | "counter" | "details"> | null {
  const d = e.data;
  switch (e.name) {
    case "email.sent":
      return { type: "SENT", counter: "sent", details: {} };
    case "email.delivery":
      return { type: "DELIVERED", counter: "delivered", details: {} };
    case "email.open":
      return { type: "OPENED", counter: "opened", details: {} };
    case "email.click":
      return { type: "CLICKED", counter: "clicked", details: { url: str(d.link) } };
    case "email.bounce": {
      // A transient bounce (a delay, a 4.x.x) is shown but not counted: the message may still arrive,
      // and the email's status does not become BOUNCED for it either.
      const permanent = d.bounceType === "Permanent";
      const diagnostic = str(d.diagnostic);
      return {
        type: "BOUNCED",
        counter: permanent ? "bounced" : null,
        details: { bounceType: permanent ? "Permanent" : "Transient", ...(diagnostic === null ? {} : { diagnostic }) },
      };
    }
    case "email.complaint":
      return { type: "COMPLAINED", counter: "complained", details: {} };
    case "email.failed":
      return { type: "FAILED", counter: "failed", details: { reason: str(d.reason) } };
    case "contact.unsubscribed":
      return { type: "UNSUBSCRIBED", counter: "unsubscribed", details: str(d.reason) ? { reason: d.reason } : {} };
    default:
      return null;
  }
}

/**
 * The timeline entry of an event of the EVENTS stream, or null when it is about no email of ours:
 * email.received, custom and segment events, a contact.unsubscribed that names no email (a PATCH, an
 * import: only an unsubscribe through an email's link can be told apart), or anything ill-formed.
 */
export function timelineEvent(e: EventEnvelope): TimelineEvent | null {
  const occurredAt = new Date(e.occurredAt);
  if (!isId(e.id) || !isId(e.projectId) || !isId(e.data.emailId) || Number.isNaN(occurredAt.getTime())) return null;
  const kind = kindOf(e);
  if (!kind) return null;
  const campaignId = isId(e.data.campaignId) ? e.data.campaignId : null;
  return { id: e.id, projectId: e.projectId, emailId: e.data.emailId, campaignId, occurredAt, ...kind };
}

/**
 * The stored timeline with the delivery events the record keeps itself: its QUEUED → SENT move
 * stores no event row (delivery/record-sent.ts), so SENT and DELIVERED come from sent_at and
 * delivered_at, under the ids their events went out with. A stored row of the same type wins (a
 * DSN's delivery; mail sent before the record kept them). Oldest first; of one instant, the
 * record's own first.
 */
export function withRecordedEvents(email: Pick<Email, "id" | "sentAt" | "deliveredAt">, stored: EmailEvent[]): EmailEvent[] {
  const has = new Set(stored.map((e) => e.type));
  const own: EmailEvent[] = [];
  if (email.sentAt && !has.has("SENT")) own.push({ id: recordedEventId(email.id, "email.sent"), emailId: email.id, type: "SENT", occurredAt: email.sentAt, details: {} });
  if (email.deliveredAt && !has.has("DELIVERED")) {
    own.push({ id: recordedEventId(email.id, "email.delivery"), emailId: email.id, type: "DELIVERED", occurredAt: email.deliveredAt, details: {} });
  }
  if (own.length === 0) return stored;
  const at = (e: EmailEvent) => Date.parse(e.occurredAt);
  // stable: equal instants keep this order, the record's own before the stored
  return [...own, ...stored].sort((a, b) => at(a) - at(b));
}
