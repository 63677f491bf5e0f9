import type { EmailSourceType, EventEnvelope } from "@mailroom/contracts";
import { newId } from "@mailroom/kit";

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
  sourceType: EmailSourceType;
}

/** An email.* event with every base field of the spec plus `data`. */
export function emailEvent(src: EventSource, name: string, data: Record<string, unknown>, at: Date): EventEnvelope {
  return {
    id: newId(),
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
      sourceType: src.sourceType,
      ...data,
    },
    occurredAt: at.toISOString(),
  };
}
