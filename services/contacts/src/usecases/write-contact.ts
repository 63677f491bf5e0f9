import { AppError, type ContactDataInput } from "@mailroom/contracts";
import { newId, type Q } from "@mailroom/kit";
import { contactsRepo, type ContactRow } from "../db/contacts-repo.js";
import { applyContactData, type DataOutcome, type EntryPoint } from "../domain/data-rules.js";
import { initialSubscription, transition, type Caller, type SubscriptionTransition, type SubscriptionVia, type UnsubscribeReason } from "../domain/subscription.js";
import { applyTopics, type TopicCatalog } from "../domain/topics.js";
import type { Outgoing } from "./outgoing.js";

const NO_TOPICS: TopicCatalog = new Map();

export interface ContactPatch {
  email?: string;
  subscribed?: boolean;
  data?: ContactDataInput;
  /** Topic choices to merge; `catalog` (the project's topics) must come with them. */
  topics?: Record<string, boolean>;
  catalog?: TopicCatalog;
  /** Omitted: a secret key's call (or the service's own). */
  caller?: Caller;
}

export interface WriteResult {
  row: ContactRow;
  isNew: boolean;
  /** Filter fields that changed (`email`, `subscribed`, `data.<key>`); empty when nothing did. */
  changed: string[];
  outcome: DataOutcome;
}

const dataFields = (keys: string[]) => keys.map((k) => `data.${k}`);

/** What a patch would change on a contact: nothing is written here. */
export function contactChanges(current: ContactRow, patch: ContactPatch, entry: EntryPoint) {
  const outcome = applyContactData(current.data, patch.data, entry);
  const sub: SubscriptionTransition = transition(current.subscribed, patch.subscribed, patch.caller);
  const topics = applyTopics(current.topics, patch.topics, patch.catalog ?? NO_TOPICS);
  const email = patch.email ?? current.email;
  const changed = [
    ...(email !== current.email ? ["email"] : []),
    ...(sub.event ? ["subscribed"] : []),
    ...dataFields(outcome.changedKeys),
    ...topics.changed,
  ];
  return { outcome, sub, email, changed, topics };
}

/** Applies a patch to an existing (locked) contact and emits what changed, and only that. */
export async function changeContact(
  tx: Q,
  out: Outgoing,
  current: ContactRow,
  patch: ContactPatch,
  entry: EntryPoint,
  now: Date,
): Promise<WriteResult> {
  const { outcome, sub, email, changed, topics } = contactChanges(current, patch, entry);
  if (changed.length === 0) return { row: current, isNew: false, changed, outcome };
  if (email.toLowerCase() !== current.email.toLowerCase()) {
    const other = await contactsRepo.byEmail(tx, current.project_id, email);
    if (other) throw emailTaken();
  }
  const row = await contactsRepo.update(tx, { ...current, email, subscribed: sub.subscribed, data: outcome.stored, topics: topics.stored, updated_at: now });
  if (sub.event) out.subscription(row, sub.event, now);
  for (const flip of topics.flips) out.topic(row, flip, flip.subscribed, now);
  out.change(row, "updated", changed, now);
  return { row, isNew: false, changed, outcome };
}

export function emailTaken(): AppError {
  return new AppError("CONFLICT", "Another contact of this project already has that email", { reason: "email_taken" });
}

/**
 * A new contact as its entry point creates it: the initial subscription, the stored data, and every
 * filter field it sets. Not written yet: `upsertContact` inserts it in its transaction, and
 * `ContactsService` first tries it as one statement (the common case of /v1/send and /v1/track).
 */
export function freshContact(projectId: string, input: FreshInput, entry: EntryPoint, now: Date): WriteResult {
  const outcome = applyContactData({}, input.data, entry);
  const topics = applyTopics({}, input.topics, input.catalog ?? NO_TOPICS);
  const row: ContactRow = {
    id: input.id ?? newId(),
    project_id: projectId,
    email: input.email,
    // double opt-in: the contact is subscribed by its confirmation click, not by this call
    subscribed: input.confirmFirst ? false : initialSubscription(entry, input.subscribed),
    data: outcome.stored,
    topics: topics.stored,
    created_at: now,
    updated_at: now,
  };
  return { row, isNew: true, changed: ["email", "subscribed", ...dataFields(Object.keys(outcome.stored)), ...topics.changed], outcome };
}

export interface FreshInput {
  /** The id a new contact gets (a POST /contacts's idempotency); a fresh one when absent. */
  id?: string;
  email: string;
  subscribed?: boolean;
  data?: ContactDataInput;
  topics?: Record<string, boolean>;
  catalog?: TopicCatalog;
  /** Double opt-in is on and a public key asks: a new contact starts unsubscribed until it confirms. */
  confirmFirst?: boolean;
}

/**
 * Create-or-update by email (case-insensitive), the one path of POST /contacts, /v1/track and
 * /v1/send. A new contact gets the entry point's initial subscription and no subscription event
 * (nothing changed from a previous value); an existing one goes through `changeContact`.
 */
export async function upsertContact(
  tx: Q,
  out: Outgoing,
  projectId: string,
  input: FreshInput & { caller?: Caller },
  entry: EntryPoint,
  now: Date,
): Promise<WriteResult> {
  let current = await contactsRepo.byEmail(tx, projectId, input.email, true);
  if (!current) {
    const fresh = freshContact(projectId, input, entry, now);
    const inserted = await contactsRepo.insertIfAbsent(tx, fresh.row);
    if (inserted) {
      out.change(inserted, "created", fresh.changed, now);
      return { ...fresh, row: inserted };
    }
    // A concurrent upsert created it first: the insert waited for its commit, so it is visible now.
    current = await contactsRepo.byEmail(tx, projectId, input.email, true);
    if (!current) throw new Error("contact disappeared during upsert");
  }
  return changeContact(tx, out, current, { subscribed: input.subscribed, data: input.data, topics: input.topics, catalog: input.catalog, caller: input.caller }, entry, now);
}

/** Merges topic choices (links, the manage page); emits an event per effective flip, and the change. */
export async function setTopics(
  tx: Q,
  out: Outgoing,
  current: ContactRow,
  given: Record<string, boolean>,
  catalog: TopicCatalog,
  now: Date,
  via?: SubscriptionVia,
): Promise<{ row: ContactRow; changed: string[] }> {
  const topics = applyTopics(current.topics, given, catalog);
  if (topics.changed.length === 0) return { row: current, changed: [] };
  const row = await contactsRepo.update(tx, { ...current, topics: topics.stored, updated_at: now });
  for (const flip of topics.flips) out.topic(row, flip, flip.subscribed, now, via);
  out.change(row, "updated", topics.changed, now);
  return { row, changed: topics.flips.map((f) => f.id) };
}

/** Sets the flag (unsubscribe links, automatic unsubscription); emits only on a change. */
export async function setSubscription(
  tx: Q,
  out: Outgoing,
  current: ContactRow,
  subscribed: boolean,
  now: Date,
  reason?: UnsubscribeReason,
  via?: SubscriptionVia,
): Promise<{ row: ContactRow; changed: boolean }> {
  const sub = transition(current.subscribed, subscribed);
  if (!sub.event) return { row: current, changed: false };
  const row = await contactsRepo.update(tx, { ...current, subscribed: sub.subscribed, updated_at: now });
  out.subscription(row, sub.event, now, reason, via);
  out.change(row, "updated", ["subscribed"], now);
  return { row, changed: true };
}
