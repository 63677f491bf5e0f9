import { z } from "zod";
import { EVENT_FAMILIES } from "./subjects.js";
import { FormSubmittedData } from "./contacts/forms.js";

/**
 * The envelope of every event on the EVENTS stream (`<prefix>.events.<family>.<projectId>`).
 * Compatibility: consumers in older replicas must keep parsing it, so fields are only ever added
 * (as optional), never renamed or removed. `id` is also the JetStream `Nats-Msg-Id`.
 */
export const EventEnvelope = z.object({
  id: z.string(),
  projectId: z.string(),
  /** `email.sent`, `contact.unsubscribed`, `segment.<slug>.entry`, or a custom name from /v1/track. */
  name: z.string(),
  family: z.enum(EVENT_FAMILIES),
  contactId: z.string().nullable(),
  /** The contact's address at the time of the event (null for events with no contact). */
  email: z.string().nullable(),
  /** The event's data: the spec's event-data tables, or the /v1/track `data` for custom events. */
  data: z.record(z.string(), z.unknown()),
  occurredAt: z.string(),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/**
 * Several events of one family and project in one message on the EVENTS stream, marked by the
 * `Mailroom-Event-Batch` header: what a write that emits many events at once (the delivery worker's
 * sent records) publishes, so the bus, the outbox and every consumer pay per batch, not per event.
 * Compatibility: consumers read both shapes (kit `eventsOf`); a consumer of a release that predates
 * batches gives a batch up as poison, so consumers are upgraded before the producers that batch.
 */
export const EventBatch = z.object({ events: z.array(EventEnvelope) });
export type EventBatch = z.infer<typeof EventBatch>;

/**
 * Headers of the EVENTS stream's messages. `names` lists the event names a message carries (comma
 * separated, each once), so a consumer skips a message it has no use for without parsing it; a
 * message without it (an older producer) is parsed. Never rename: in-flight messages carry them.
 */
export const EVENT_HEADERS = {
  batch: "Mailroom-Event-Batch",
  names: "Mailroom-Event-Names",
} as const;

/** The envelope fields checked by hand: the fast path of reading an event, zod only when it fails. */
export function isEventEnvelope(v: unknown): v is EventEnvelope {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    typeof e.id === "string" &&
    typeof e.projectId === "string" &&
    typeof e.name === "string" &&
    typeof e.family === "string" &&
    (EVENT_FAMILIES as readonly string[]).includes(e.family) &&
    (e.contactId === null || typeof e.contactId === "string") &&
    (e.email === null || typeof e.email === "string") &&
    typeof e.data === "object" &&
    e.data !== null &&
    !Array.isArray(e.data) &&
    typeof e.occurredAt === "string"
  );
}

export const SYSTEM_EVENT_NAMES = [
  "email.sent",
  "email.delivery",
  "email.open",
  "email.click",
  "email.bounce",
  "email.complaint",
  "email.received",
  "email.failed",
  "contact.subscribed",
  "contact.unsubscribed",
  "contact.topic.subscribed",
  "contact.topic.unsubscribed",
  // a signup form's submission (decisions.md §17): recorded on the contact like a tracked event
  // (family `custom`, so segments' `event.form.submitted` and workflow triggers see it), but only
  // the contacts service emits it: /v1/track refuses the name
  "form.submitted",
] as const;

/** A contact's topic choice changed (decisions.md §14): workflows may trigger on these. */
export const TOPIC_EVENT_NAMES = ["contact.topic.subscribed", "contact.topic.unsubscribed"] as const;
export type TopicEventName = (typeof TOPIC_EVENT_NAMES)[number];

/** Names /v1/track must refuse with reason `reserved_event` (api-spec /v1/track). */
export function isReservedEventName(name: string): boolean {
  return (
    name.startsWith("email.") ||
    name === "contact.subscribed" ||
    name === "contact.unsubscribed" ||
    (TOPIC_EVENT_NAMES as readonly string[]).includes(name) ||
    name === "form.submitted" ||
    /^segment\..+\.(entry|exit)$/.test(name)
  );
}

/** Base fields of every email event except email.received (api-spec "Event data: email events"). */
export const EmailEventBase = z.object({
  subject: z.string(),
  from: z.string(),
  fromName: z.string(),
  messageId: z.string(),
  emailId: z.string(),
  templateId: z.string().nullable(),
  campaignId: z.string().nullable(),
  /** Mailroom's addition: the workflow whose SEND_EMAIL step sent it (absent in events of older releases). */
  workflowId: z.string().nullable().optional(),
  sourceType: z.enum(["TRANSACTIONAL", "CAMPAIGN", "WORKFLOW", "INBOUND"]),
});
export type EmailEventBase = z.infer<typeof EmailEventBase>;

export const EmailSentData = EmailEventBase.extend({ sentAt: z.string() });
export const EmailDeliveryData = EmailEventBase.extend({ deliveredAt: z.string() });
export const EmailOpenData = EmailEventBase.extend({
  openedAt: z.string(),
  opens: z.number().int(),
  isFirstOpen: z.boolean(),
});
export const EmailClickData = EmailEventBase.extend({
  link: z.string(),
  clickedAt: z.string(),
  clicks: z.number().int(),
  isFirstClick: z.boolean(),
});
export const EmailBounceData = EmailEventBase.extend({
  bounceType: z.enum(["Permanent", "Transient"]),
  bouncedAt: z.string().optional(),
  transientBounce: z.boolean(),
  /** Mailroom's addition: the remote MTA's diagnostic (one line, at most 500 characters), when it gave one. */
  diagnostic: z.string().optional(),
  /**
   * Mailroom's addition: the email was deferred (4xx) until DELIVERY_MAX_AGE ran out and was never
   * sent (decisions.md §18). An `email.failed` follows it: that one ends the email.
   */
  expired: z.boolean().optional(),
});
export const EmailComplaintData = EmailEventBase.extend({ complainedAt: z.string() });
/**
 * Mailroom's addition to the spec's list: the email will never be sent (relay 5xx, retries used up,
 * sender domain gone, address suppressed). Campaign completion and workflows need a terminal event
 * for every email, not only for the ones that went out.
 */
export const EmailFailedData = EmailEventBase.extend({ failedAt: z.string(), reason: z.string() });
export const Verdict = z.enum(["PASS", "FAIL", "GRAY", "PROCESSING_FAILED"]);
export const EmailReceivedData = z.object({
  messageId: z.string(),
  from: z.string(),
  fromHeader: z.string(),
  to: z.string(),
  subject: z.string(),
  timestamp: z.string(),
  recipients: z.array(z.string()),
  hasContent: z.boolean(),
  body: z.string(),
  spamVerdict: Verdict,
  virusVerdict: Verdict,
  spfVerdict: z.string(),
  dkimVerdict: z.string(),
  dmarcVerdict: z.string(),
  processingTimeMillis: z.number(),
  /** Mailroom's addition: a field was cut to its byte bound, or the message to the inbound keep size. */
  truncated: z.boolean().optional(),
});

/**
 * contact.subscribed / contact.unsubscribed: `{}` or `{reason}` after a bounce or complaint; a change
 * made through an email's link also names that email and its campaign (null for mail of no campaign).
 */
export const SubscriptionEventData = z.object({
  reason: z.enum(["bounce", "complaint"]).optional(),
  emailId: z.string().optional(),
  campaignId: z.string().nullable().optional(),
});
/** contact.topic.subscribed / .unsubscribed; a change made through an email's link names it too. */
export const TopicEventData = z.object({
  topicId: z.string(),
  topicName: z.string(),
  emailId: z.string().optional(),
  campaignId: z.string().nullable().optional(),
});
export const SegmentEventData = z.object({ segmentId: z.string(), segmentName: z.string() });

export const SYSTEM_EVENT_DATA = {
  "email.sent": EmailSentData,
  "email.delivery": EmailDeliveryData,
  "email.open": EmailOpenData,
  "email.click": EmailClickData,
  "email.bounce": EmailBounceData,
  "email.complaint": EmailComplaintData,
  "email.received": EmailReceivedData,
  "email.failed": EmailFailedData,
  "contact.subscribed": SubscriptionEventData,
  "contact.unsubscribed": SubscriptionEventData,
  "contact.topic.subscribed": TopicEventData,
  "contact.topic.unsubscribed": TopicEventData,
  "form.submitted": FormSubmittedData,
} as const;
