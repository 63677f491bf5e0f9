import { z } from "zod";
import { JsonValue, Timestamp } from "../common.js";
import { FilterExpression } from "../filters.js";

/**
 * `data` as callers send it (api-spec "Contact data rules"): any JSON per key. `null` deletes the
 * key, `""` is skipped, `{value, persistent: false}` is one-shot on send and track, reserved keys are
 * dropped. Those rules belong to the contacts service, so the schema accepts every JSON value.
 */
export const ContactDataInput = z.record(z.string().max(200), JsonValue);
export type ContactDataInput = z.infer<typeof ContactDataInput>;

/** The one-shot form: used for one send or track, never stored. */
export const OneShotValue = z.object({ value: JsonValue, persistent: z.literal(false) });
export type OneShotValue = z.infer<typeof OneShotValue>;

/** Stored contact data (objects stored by /v1/track stay objects). */
export const ContactData = z.record(z.string(), JsonValue);
export type ContactData = z.infer<typeof ContactData>;

export const Contact = z.object({
  id: z.string(),
  email: z.string(),
  subscribed: z.boolean(),
  data: ContactData,
  /** The contact's own topic choices only (contacts/topics.ts): a missing topic has its default. */
  topics: z.record(z.string(), z.boolean()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Contact = z.infer<typeof Contact>;

/** POST /contacts answer only. */
export const UpsertedContact = Contact.extend({
  _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
});
export type UpsertedContact = z.infer<typeof UpsertedContact>;

/** Tracked event names: 1..200 printable characters. Reserved names pass here and are refused by
 * the service with reason `reserved_event`, so the client learns why rather than "bad format". */
export const EventName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, { message: "must contain only printable characters" });
export type EventName = z.infer<typeof EventName>;

export const ContactEvent = z.object({
  id: z.string(),
  name: z.string(),
  data: z.record(z.string(), JsonValue),
  createdAt: Timestamp,
});
export type ContactEvent = z.infer<typeof ContactEvent>;

export const Segment = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  filters: FilterExpression,
  trackMembership: z.boolean(),
  memberCount: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Segment = z.infer<typeof Segment>;
