import { z } from "zod";
import { UploadReleaseRequest, UploadSlotReply, UploadSlotRequest, defineRpc } from "../route.js";
import { EmailAddress, Id, JsonObject } from "../common.js";
import { ErrorDetail } from "../errors.js";
import { ConditionConfig, FilterExpression } from "../filters.js";
import { Contact, ContactData, ContactDataInput } from "./records.js";
import { ContactTopics, Topic } from "./topics.js";

/** Which call upserts: the data rules differ (one-shot values on send and track, default
 * subscription false on send, true on track and api). */
export const UpsertEntryPoint = z.enum(["send", "track", "api"]);
export type UpsertEntryPoint = z.infer<typeof UpsertEntryPoint>;

export const UpsertContactRpcRequest = z.object({
  projectId: Id,
  email: EmailAddress,
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  entryPoint: UpsertEntryPoint,
});
export type UpsertContactRpcRequest = z.infer<typeof UpsertContactRpcRequest>;

export const UpsertContactRpcReply = z.object({
  contact: Contact,
  isNew: z.boolean(),
  /** Whether anything stored changed (data or subscription). */
  changed: z.boolean(),
  /** Stored data merged with this call's one-shot values: the template variables of a send. */
  templateData: JsonObject,
});
export type UpsertContactRpcReply = z.infer<typeof UpsertContactRpcReply>;

/** Recipients of one upsertMany call: a /v1/send's whole `to` fits (MAX_RECIPIENTS is 50). */
export const MAX_UPSERT_BATCH = 100;

/**
 * The upserts of one /v1/send's recipients in one call: each address as `upsert` would do it, in
 * order, with the same `subscribed` and `data` for all (the request's). An address given twice
 * (case-insensitively) names one contact, and the second sees the first's write.
 */
export const UpsertManyRpcRequest = z.object({
  projectId: Id,
  emails: z.array(EmailAddress).min(1).max(MAX_UPSERT_BATCH),
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  entryPoint: UpsertEntryPoint,
});
export type UpsertManyRpcRequest = z.infer<typeof UpsertManyRpcRequest>;

/** One result per address of the request, in its order. */
export const UpsertManyRpcReply = z.object({ results: z.array(UpsertContactRpcReply) });
export type UpsertManyRpcReply = z.infer<typeof UpsertManyRpcReply>;

/**
 * Keyset page by id, for campaign audiences and scheduled workflows: `afterId` is the last id of the
 * previous page. `segmentId` narrows to the segment's members (a segment that is not the project's
 * is NOT_FOUND), `filter` to the contacts matching it (a `segment.<id>` that is not the project's is
 * a VALIDATION_ERROR at `filter.…`); given both, both apply. Relative-time filters count back from
 * the moment of each page's query.
 */
export const ContactPageRpcRequest = z.object({
  projectId: Id,
  afterId: Id.optional(),
  limit: z.number().int().min(1).max(1000),
  subscribedOnly: z.boolean(),
  segmentId: Id.optional(),
  filter: FilterExpression.optional(),
  /** A topic campaign's audience: only contacts opted into the topic (their choice, or its default). */
  topicId: Id.optional(),
});
export type ContactPageRpcRequest = z.infer<typeof ContactPageRpcRequest>;

export const PagedContact = z.object({ id: z.string(), email: z.string(), subscribed: z.boolean(), data: ContactData });
export type PagedContact = z.infer<typeof PagedContact>;

export const ContactPageRpcReply = z.object({ contacts: z.array(PagedContact), nextAfterId: z.string().nullable() });
export type ContactPageRpcReply = z.infer<typeof ContactPageRpcReply>;

export const GetContactRpcRequest = z
  .object({ projectId: Id, id: Id.optional(), email: EmailAddress.optional() })
  .refine((r) => (r.id === undefined) !== (r.email === undefined), { message: "give exactly one of id and email" });
export type GetContactRpcRequest = z.infer<typeof GetContactRpcRequest>;

/** A missing contact is an expected answer (callers decide whether it is an error), not a failure. */
export const GetContactRpcReply = z.object({ contact: Contact.nullable() });
export type GetContactRpcReply = z.infer<typeof GetContactRpcReply>;

export const SetSubscriptionRpcRequest = z.object({
  projectId: Id,
  contactId: Id,
  subscribed: z.boolean(),
  /** Set for automatic changes; travels as `reason` on contact.unsubscribed. */
  reason: z.enum(["bounce", "complaint"]).optional(),
  /** The email whose link made the change; travels as `emailId` and `campaignId` on the event (/stats, campaign stats). */
  via: z.object({ emailId: Id, campaignId: Id.nullable() }).optional(),
});
export type SetSubscriptionRpcRequest = z.infer<typeof SetSubscriptionRpcRequest>;

export const SetSubscriptionRpcReply = z.object({ contact: Contact, changed: z.boolean() });
export type SetSubscriptionRpcReply = z.infer<typeof SetSubscriptionRpcReply>;

/**
 * Checks what a campaign or workflow is about to store against the project's segments: `segmentId`
 * must be a segment of the project; `filter` (an audience) and `condition` (a CONDITION step's
 * config) may refer only to the project's segments, without cycles. Their shape is already checked
 * by this contract. Problems come back as values, with paths relative to this request (`segmentId`,
 * `filter.groups.0.filters.1.field`), so the caller re-roots them under its own field.
 */
export const ValidateFilterRpcRequest = z.object({
  projectId: Id,
  segmentId: Id.optional(),
  filter: FilterExpression.optional(),
  condition: ConditionConfig.optional(),
  /** A campaign's topic: must be a topic of the project (problem at `topicId`). */
  topicId: Id.optional(),
});
export type ValidateFilterRpcRequest = z.infer<typeof ValidateFilterRpcRequest>;

export const ValidateFilterRpcReply = z.object({ valid: z.boolean(), details: z.array(ErrorDetail) });
export type ValidateFilterRpcReply = z.infer<typeof ValidateFilterRpcReply>;

/** The project's topics (the manage page lists them). */
export const TopicsRpcRequest = z.object({ projectId: Id });
export type TopicsRpcRequest = z.infer<typeof TopicsRpcRequest>;
export const TopicsRpcReply = z.object({ topics: z.array(Topic) });
export type TopicsRpcReply = z.infer<typeof TopicsRpcReply>;

/**
 * Sets some of a contact's topic choices (a topic campaign's one-click unsubscribe, the manage
 * page's checkboxes). Each change emits `contact.topic.subscribed` / `.unsubscribed`; unknown topic
 * ids are ignored (a topic deleted since the page was shown).
 */
export const SetTopicsRpcRequest = z.object({
  projectId: Id,
  contactId: Id,
  topics: ContactTopics,
  via: z.object({ emailId: Id, campaignId: Id.nullable() }).optional(),
});
export type SetTopicsRpcRequest = z.infer<typeof SetTopicsRpcRequest>;
export const SetTopicsRpcReply = z.object({ contact: Contact, changed: z.array(z.string()) });
export type SetTopicsRpcReply = z.infer<typeof SetTopicsRpcReply>;

export const contactsRpc = {
  /** A place among the project's pending imports, before an upload's body is read (decisions.md §15). */
  reserveImport: defineRpc({ service: "contacts", operation: "contacts.imports.reserve", request: UploadSlotRequest, reply: UploadSlotReply }),
  releaseImport: defineRpc({ service: "contacts", operation: "contacts.imports.release", request: UploadReleaseRequest, reply: z.object({}) }),
  topics: defineRpc({ service: "contacts", operation: "contacts.topics.all", request: TopicsRpcRequest, reply: TopicsRpcReply }),
  setTopics: defineRpc({ service: "contacts", operation: "contacts.topics.set", request: SetTopicsRpcRequest, reply: SetTopicsRpcReply }),
  upsert: defineRpc({
    service: "contacts",
    operation: "contacts.upsert",
    request: UpsertContactRpcRequest,
    reply: UpsertContactRpcReply,
  }),
  upsertMany: defineRpc({
    service: "contacts",
    operation: "contacts.upsertMany",
    request: UpsertManyRpcRequest,
    reply: UpsertManyRpcReply,
  }),
  page: defineRpc({
    service: "contacts",
    operation: "contacts.page",
    request: ContactPageRpcRequest,
    reply: ContactPageRpcReply,
  }),
  get: defineRpc({ service: "contacts", operation: "contacts.get", request: GetContactRpcRequest, reply: GetContactRpcReply }),
  setSubscription: defineRpc({
    service: "contacts",
    operation: "contacts.setSubscription",
    request: SetSubscriptionRpcRequest,
    reply: SetSubscriptionRpcReply,
  }),
  validateFilter: defineRpc({
    service: "contacts",
    operation: "contacts.segments.validateFilter",
    request: ValidateFilterRpcRequest,
    reply: ValidateFilterRpcReply,
  }),
};
