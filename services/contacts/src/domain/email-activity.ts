import type { EventEnvelope } from "@mailroom/contracts";
import type { UnsubscribeReason } from "./subscription.js";

/** The `email_activity.kind` values, one per email event the filter language can ask about. */
export type ActivityKind = "sent" | "delivered" | "opened" | "clicked" | "bounced" | "complained";

const KIND_OF_EVENT: Readonly<Record<string, ActivityKind>> = {
  "email.sent": "sent",
  "email.delivery": "delivered",
  "email.open": "opened",
  "email.click": "clicked",
  "email.bounce": "bounced",
  "email.complaint": "complained",
};

/** Whether events of this name can be activity (the rest of the email family is skipped unread). */
export const isActivityEvent = (name: string): boolean => Object.hasOwn(KIND_OF_EVENT, name);

export interface EmailActivity {
  kind: ActivityKind;
  emailId: string;
  /** Set when the event unsubscribes the contact: a permanent bounce or a complaint. */
  unsubscribe: UnsubscribeReason | null;
}

/**
 * What an email event means for a contact, or null when it means nothing here (email.received,
 * an event with no contact or no email id). A transient bounce is activity but leaves the contact
 * subscribed.
 */
export function emailActivityOf(event: Pick<EventEnvelope, "name" | "contactId" | "data">): EmailActivity | null {
  const kind = isActivityEvent(event.name) ? KIND_OF_EVENT[event.name] : undefined;
  const emailId = event.data.emailId;
  if (!kind || !event.contactId || typeof emailId !== "string") return null;
  let unsubscribe: UnsubscribeReason | null = null;
  if (kind === "bounced" && event.data.bounceType === "Permanent") unsubscribe = "bounce";
  if (kind === "complained") unsubscribe = "complaint";
  return { kind, emailId, unsubscribe };
}
