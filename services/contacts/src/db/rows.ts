import type { Contact } from "@mailroom/contracts";
import { iso } from "@mailroom/kit";
import type { ContactRow } from "./contacts-repo.js";

/** A contact row in its API form: what a handler answers for the rows a use case wrote. */
export function toContact(r: ContactRow): Contact {
  return {
    id: r.id,
    email: r.email,
    subscribed: r.subscribed,
    data: r.data,
    topics: r.topics,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}
