import { z } from "zod";

/**
 * A contact-change message on the CONTACT_CHANGES stream (`names.subjects.contactChange(projectId)`),
 * published by the contacts service through its outbox for every create, update (data, email,
 * subscription), delete, tracked event and first email activity of a kind per email (`activity`).
 * The segment tracker re-evaluates the contact from it; it is its only reader. A CSV import writes
 * none: it settles tracked segments itself, set-based a batch at a time, so the tracker would have
 * nothing to do.
 *
 * Compatibility: consumers in older replicas must keep parsing it, so fields are only ever added
 * (as optional) and `kind` values only ever added; nothing is renamed or removed. `id` is also the
 * JetStream `Nats-Msg-Id`.
 */
export const ContactChangeKind = z.enum(["created", "updated", "deleted", "event", "activity"]);
export type ContactChangeKind = z.infer<typeof ContactChangeKind>;

export const ContactChange = z.object({
  id: z.string(),
  projectId: z.string(),
  contactId: z.string(),
  kind: ContactChangeKind,
  /**
   * What changed, as filter fields: `email`, `subscribed`, `data.<key>`; `event.<name>` for events;
   * `email.<sent|delivered|opened|clicked|bounced|complained>` for email activity.
   */
  changed: z.array(z.string()),
  /** Set when `kind` is `event`: the tracked event's name. */
  eventName: z.string().optional(),
  occurredAt: z.string(),
  /**
   * Set when the write itself brought tracked segments up to date in its transaction: the tracker
   * has nothing left to do for this change and skips it. No writer sets it any more (a CSV import,
   * which did, now writes no ContactChange at all); kept, and still honoured by the tracker, because
   * fields are never removed and messages from an older replica (in its outbox or the stream during
   * a rolling upgrade) may carry it.
   */
  segmentsSettled: z.boolean().optional(),
});
export type ContactChange = z.infer<typeof ContactChange>;
