import { z } from "zod";
import { defineRoute } from "../route.js";
import { CursorPageQuery, EmailAddress, IdParams, SuccessEnvelope, Timestamp, cursorPage } from "../common.js";
import { Contact, ContactDataInput, ContactEvent, EventName, UpsertedContact } from "./records.js";
import { ContactTopics } from "./topics.js";

export const TrackRequest = z.object({
  email: EmailAddress,
  event: EventName,
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
});
export type TrackRequest = z.infer<typeof TrackRequest>;

export const TrackResult = z.object({ contact: z.string(), event: z.string(), timestamp: Timestamp });
export type TrackResult = z.infer<typeof TrackResult>;
export const TrackResponse = SuccessEnvelope(TrackResult);

export const ListContactsQuery = CursorPageQuery.extend({ search: z.string().max(254).optional() });
export type ListContactsQuery = z.infer<typeof ListContactsQuery>;

/** `total` is counted on the first page only (no cursor); later pages answer 0 (api-spec). */
export const ContactList = cursorPage(Contact).extend({ total: z.number().int() });
export type ContactList = z.infer<typeof ContactList>;

export const CreateContactRequest = z.object({
  email: EmailAddress,
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  /** Merged into the contact's choices; a topic that is not the project's is a 400 at `topics.<id>`. */
  topics: ContactTopics.optional(),
});
export type CreateContactRequest = z.infer<typeof CreateContactRequest>;

export const UpdateContactRequest = z.object({
  email: EmailAddress.optional(),
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  topics: ContactTopics.optional(),
});
export type UpdateContactRequest = z.infer<typeof UpdateContactRequest>;

export const ContactEventList = cursorPage(ContactEvent);
export type ContactEventList = z.infer<typeof ContactEventList>;

/** Names of the events seen in the project, for building triggers (not paged: one row per name). */
export const EventNameList = z.object({ data: z.array(z.string()) });
export type EventNameList = z.infer<typeof EventNameList>;

/** The `data` keys seen in the project, as filter fields name them (`company.size` for nested objects). */
export const DataKeyList = z.object({ data: z.array(z.string()) });
export type DataKeyList = z.infer<typeof DataKeyList>;

const base = { service: "contacts", auth: "secret", tag: "Contacts" } as const;

export const contactRoutes = [
  defineRoute({
    ...base,
    method: "POST",
    path: "/v1/track",
    operation: "contacts.track",
    auth: "any",
    tag: "Events",
    summary: "Track an event for a contact (creates the contact when missing)",
    body: TrackRequest,
    response: TrackResponse,
    status: 200,
    idempotent: true,
    cors: true,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/contacts",
    operation: "contacts.list",
    summary: "List contacts",
    query: ListContactsQuery,
    response: ContactList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/contacts",
    operation: "contacts.create",
    summary: "Create or update a contact by email (201 created, 200 updated)",
    body: CreateContactRequest,
    response: UpsertedContact,
    status: 201,
    idempotent: true,
  }),
  // "read", not "get": `contacts.get` is the internal RPC of rpc.ts and both share one subject space
  defineRoute({
    ...base,
    method: "GET",
    path: "/contacts/:id",
    operation: "contacts.read",
    summary: "Get a contact",
    params: IdParams,
    response: Contact,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/contacts/:id",
    operation: "contacts.update",
    summary: "Update a contact",
    params: IdParams,
    body: UpdateContactRequest,
    response: Contact,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/contacts/:id",
    operation: "contacts.delete",
    summary: "Delete a contact permanently",
    params: IdParams,
    status: 204,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/contacts/:id/events",
    operation: "contacts.events",
    summary: "List a contact's tracked events, newest first",
    params: IdParams,
    query: CursorPageQuery,
    response: ContactEventList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/contacts/data-keys",
    operation: "contacts.dataKeys",
    summary: "List the contact data keys seen in the project (for building filters)",
    response: DataKeyList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/events/names",
    operation: "contacts.eventNames",
    tag: "Events",
    summary: "List the event names seen in the project",
    response: EventNameList,
    status: 200,
  }),
];
