import type { EmailSourceType, EventEnvelope } from "@mailroom/contracts";
import { derivedId, newId } from "@mailroom/kit";

/** What an email event says about its email record (the spec's base fields and the envelope's contact). */
export interface EventSource {
  id: string;
  projectId: string;
  contactId: string | null;
  to: string;
  subject: string;
  from: string;
  fromName: string | null;
  messageId: string;
  templateId: string | null;
  campaignId: string | null;
  /** The workflow whose SEND_EMAIL step made it (null for other mail): webhook receivers match on it. */
  workflowId: string | null;
  sourceType: EmailSourceType;
}

/** The delivery events the record's QUEUED → SENT move emits, once each: their history is the record's own. */
export type RecordedEvent = "email.sent" | "email.delivery";

/**
 * The id of a delivery event, derived from the email's: the timeline, which reads these from the
 * record (sent_at, delivered_at) instead of storing them, names them as they went out.
 */
export const recordedEventId = (emailId: string, name: RecordedEvent): string => derivedId(emailId, name);

/** An email.* event with every base field of the spec plus `data`. */
export function emailEvent(src: EventSource, name: string, data: Record<string, unknown>, at: Date, id = newId()): EventEnvelope {
  return {
    id,
    projectId: src.projectId,
    name,
    family: "email",
    contactId: src.contactId,
    email: src.to,
    data: {
      subject: src.subject,
      from: src.from,
      fromName: src.fromName ?? "",
      messageId: src.messageId,
      emailId: src.id,
      templateId: src.templateId,
      campaignId: src.campaignId,
      workflowId: src.workflowId,
      sourceType: src.sourceType,
      ...data,
    },
    occurredAt: at.toISOString(),
  };
}
