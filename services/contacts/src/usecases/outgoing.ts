import { eventFamily, type ContactChange, type ContactChangeKind, type EventEnvelope, type JsonValue, type WireNames } from "@mailroom/contracts";
import { eventMessage, newId, type OutboxMessage } from "@mailroom/kit";
import type { ContactRow } from "../db/contacts-repo.js";
import type { SubscriptionEvent, SubscriptionVia, UnsubscribeReason } from "../domain/subscription.js";

/**
 * The messages one write produces, collected while its transaction runs and enqueued in the same
 * transaction (the outbox), so they go out if and only if the change is committed.
 */
export class Outgoing {
  readonly messages: OutboxMessage[] = [];

  constructor(private readonly names: WireNames) {}

  private event(contact: ContactRow, name: string, data: Record<string, unknown>, at: Date, id = newId()): void {
    const envelope: EventEnvelope = {
      id,
      projectId: contact.project_id,
      name,
      // custom names never look like system ones (/v1/track refuses reserved names)
      family: eventFamily(name),
      contactId: contact.id,
      email: contact.email,
      data,
      occurredAt: at.toISOString(),
    };
    this.messages.push(eventMessage(this.names, envelope));
  }

  /**
   * contact.subscribed / contact.unsubscribed: `{}`, or `{reason}` after a bounce or complaint, plus
   * `{emailId, campaignId}` when an email's link made the change.
   */
  subscription(contact: ContactRow, name: SubscriptionEvent, at: Date, reason?: UnsubscribeReason, via?: SubscriptionVia): void {
    this.event(contact, name, { ...(reason ? { reason } : {}), ...(via ?? {}) }, at);
  }

  /** `contact.topic.subscribed` / `.unsubscribed` with `{topicId, topicName}` (and the email whose link did it). */
  topic(contact: ContactRow, topic: { id: string; name: string }, subscribed: boolean, at: Date, via?: SubscriptionVia): void {
    const name = subscribed ? "contact.topic.subscribed" : "contact.topic.unsubscribed";
    this.event(contact, name, { topicId: topic.id, topicName: topic.name, ...(via ?? {}) }, at);
  }

  /** A tracked event for the workflow engine and the segment tracker (one-shot values included). */
  custom(contact: ContactRow, name: string, data: Record<string, JsonValue>, at: Date, id: string): void {
    this.event(contact, name, data, at, id);
  }

  /** `segment.<slug>.entry` / `.exit` with `{segmentId, segmentName}` (api-spec "Other event data"). */
  segment(contact: ContactRow, segment: { id: string; name: string; slug: string }, edge: "entry" | "exit", at: Date): void {
    this.event(contact, `segment.${segment.slug}.${edge}`, { segmentId: segment.id, segmentName: segment.name }, at);
  }

  /** A contact-change message on CONTACT_CHANGES (packages/contracts contacts/changes.ts). */
  change(
    contact: Pick<ContactRow, "project_id" | "id">,
    kind: ContactChangeKind,
    changed: string[],
    at: Date,
    eventName?: string,
  ): void {
    const payload: ContactChange = {
      id: newId(),
      projectId: contact.project_id,
      contactId: contact.id,
      kind,
      changed,
      ...(eventName === undefined ? {} : { eventName }),
      occurredAt: at.toISOString(),
    };
    this.messages.push({ id: payload.id, subject: this.names.subjects.contactChange(contact.project_id), payload });
  }
}
