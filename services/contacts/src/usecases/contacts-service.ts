import { AppError, isReservedEventName, type ContactDataInput, type JsonValue, type TrackResult } from "@mailroom/contracts";
import { Batcher, isId, newId } from "@mailroom/kit";
import { contactsRepo, createOrReadManyStatement, readCreatedOrRead, type ContactRow } from "../db/contacts-repo.js";
import { type EventRow, eventsRepo } from "../db/events-repo.js";
import { locks, membersRepo, projectsSharedStatement } from "../db/members-repo.js";
import { storedKeys, type DataOutcome, type EntryPoint } from "../domain/data-rules.js";
import { asksToSubscribe, type Caller, type SubscriptionVia, type UnsubscribeReason } from "../domain/subscription.js";
import { unknownTopicProblems, type TopicCatalog } from "../domain/topics.js";
import type { DataKeyRegistry } from "./data-key-registry.js";
import type { DoubleOptInGate } from "./double-opt-in.js";
import type { Outgoing } from "./outgoing.js";
import type { TopicsService } from "./topics-service.js";
import { changeContact, contactChanges, emailTaken, freshContact, setSubscription, setTopics, upsertContact, type ContactPatch, type WriteResult } from "./write-contact.js";
import type { Writer } from "./writer.js";

/** One `upsertMany` call's new rows, as it would create them. */
interface FreshCall {
  fresh: WriteResult[];
  now: Date;
}

export interface UpsertInput {
  /** The id a new contact gets; a fresh one when absent. */
  id?: string;
  email: string;
  subscribed?: boolean;
  data?: ContactDataInput;
  topics?: Record<string, boolean>;
  /** Filled in by the service when `topics` is given. */
  catalog?: TopicCatalog;
  /** Double opt-in: a new contact starts unsubscribed (write-contact.ts `freshContact`). */
  confirmFirst?: boolean;
  /** A public key's call may not resubscribe an existing contact (domain/subscription.ts). */
  caller?: Caller;
}

/** A second attempt of one /v1/track (the same `idempotencyId`, so the same event id) found the first's event. */
const isRecordedEvent = (err: unknown) =>
  (err as { code?: string; constraint_name?: string })?.code === "23505" &&
  (err as { constraint_name?: string }).constraint_name === "contact_events_pkey";

const isEmailClash = (err: unknown) =>
  (err as { code?: string; constraint_name?: string })?.code === "23505" &&
  (err as { constraint_name?: string }).constraint_name === "contacts_project_email_uq";

/** The contacts service's writes. Each is one transaction with its outgoing messages. */
export class ContactsService {
  /**
   * Group commit of `upsertMany`'s create-or-read: the calls of one turn (the /v1/sends of one
   * coalesced RPC message) create or read their contacts in one transaction. A failed transaction
   * wrote nothing and runs again per call.
   */
  private readonly creates = new Batcher((calls: FreshCall[]) => this.createOrReadMany(calls), {
    maxBatch: 64,
    maxInFlight: 2,
    startNextTurn: true,
    splitOnError: true,
  });

  constructor(
    private readonly writer: Writer,
    private readonly topics: TopicsService,
    private readonly optIn: DoubleOptInGate,
    /** The project's data-key limit, checked before every write of contact data (no query when the keys are known). */
    private readonly dataKeys: DataKeyRegistry,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The project's data-key limit for a write of `data` (no query when its keys are known here). */
  private admitKeys(projectId: string, data: ContactDataInput | undefined, entry: EntryPoint): Promise<void> | null {
    return this.dataKeys.admit(projectId, storedKeys(data, entry));
  }

  /** The project's topics when the write names some, after refusing ids that are not the project's. */
  private async withCatalog<T extends { topics?: Record<string, boolean> | undefined }>(projectId: string, input: T): Promise<T & { catalog?: TopicCatalog }> {
    if (!input.topics || Object.keys(input.topics).length === 0) return input;
    const catalog = await this.topics.catalog(projectId);
    const problems = unknownTopicProblems(input.topics, catalog);
    if (problems.length > 0) throw AppError.validation(problems[0]!.message, problems);
    return { ...input, catalog };
  }

  /**
   * The common cases take one statement each: a new address is created by the first, and an existing
   * contact the call leaves as it is needs no write at all. A change, or a lost race, takes the
   * transaction.
   */
  async upsert(projectId: string, given: UpsertInput, entry: EntryPoint): Promise<WriteResult> {
    await this.admitKeys(projectId, given.data, entry);
    const input = await this.withCatalog(projectId, given);
    const now = this.clock();
    const first = await this.createOrInspect(projectId, input, entry, now);
    if (first?.created) return first.created;
    if (first?.existing && first.existing.changed.length === 0) return first.existing;
    return this.writer.run((tx, out) => upsertContact(tx, out, projectId, input, entry, now));
  }

  /**
   * `upsert` for several addresses with the same input (a /v1/send's recipients), in the order given.
   * The addresses are created or read in one statement (shared with the calls made together, see
   * `creates`); only contacts the input changes, and
   * addresses created concurrently, take a transaction (one for all of them). An address given twice
   * names one contact: the second sees the first's write, which leaves nothing to change.
   */
  async upsertMany(projectId: string, emails: string[], input: Omit<UpsertInput, "email">, entry: EntryPoint): Promise<WriteResult[]> {
    const registering = this.admitKeys(projectId, input.data, entry);
    if (registering) await registering; // hot path (/v1/send): no await when the keys are known
    const now = this.clock();
    const byAddress = new Map<string, WriteResult>();
    for (const email of emails) {
      const key = email.toLowerCase();
      if (!byAddress.has(key)) byAddress.set(key, freshContact(projectId, { ...input, email }, entry, now));
    }
    const read = await this.creates.add({ fresh: [...byAddress.values()], now });
    const pending: string[] = [];
    for (const [key, f] of byAddress) {
      const r = read.get(key);
      if (!r) {
        pending.push(key); // created concurrently after the statement's snapshot: the transaction reads it
      } else if (r.created) {
        byAddress.set(key, { ...f, row: r.row });
      } else {
        const { outcome, changed } = contactChanges(r.row, input, entry);
        if (changed.length > 0) pending.push(key);
        else byAddress.set(key, { row: r.row, isNew: false, changed, outcome });
      }
    }
    if (pending.length > 0) {
      // in address order, so two calls that share addresses lock them in the same order
      pending.sort();
      await this.writer.run(async (tx, out) => {
        for (const key of pending) byAddress.set(key, await upsertContact(tx, out, projectId, { ...input, email: byAddress.get(key)!.row.email }, entry, now));
      });
    }
    const seen = new Set<string>();
    return emails.map((email) => {
      const key = email.toLowerCase();
      const result = byAddress.get(key)!;
      if (seen.has(key)) return { ...result, isNew: false, changed: [] };
      seen.add(key);
      return result;
    });
  }

  /**
   * Creates the calls' new contacts, or reads the ones that exist, in one statement. Each call gets
   * lower-cased address → what the statement found: its own fresh row if that was created, or the
   * existing contact. An address absent from its map was created after the statement's snapshot, by
   * a concurrent write or by another call of this batch, and is left to the caller's transaction.
   *
   * A created contact emits its `created` change only if its project tracks a segment: changes feed
   * only the segment tracker, and a /v1/send to a project without one (most transactional mail)
   * would otherwise cost a message through the outbox, the stream, the tracker and its ack per
   * recipient. So the statement writes a new row's change only if the project tracks one, read after
   * the projects' shared lock is held, as the email-activity projection reads it: a segment write
   * committed before is seen, and one after waits for this commit and records its members from the
   * rows. BEGIN, the lock, the statement and COMMIT take one round trip.
   */
  private async createOrReadMany(calls: FreshCall[]): Promise<Array<Map<string, { row: ContactRow; created: boolean }>>> {
    const rows = calls.flatMap((c) => c.fresh.map((f) => f.row));
    const out = this.writer.outgoing();
    for (const c of calls) for (const f of c.fresh) out.change(f.row, "created", f.changed, c.now);
    const [, statement] = await this.writer.inOneRoundTrip(
      "ContactsRepo.createOrReadMany",
      out.messages,
      rows.map((r) => r.id),
      (tx, outbox) => [projectsSharedStatement(tx, rows.map((r) => r.project_id)), createOrReadManyStatement(tx, rows, outbox)] as const,
      ([, found]) => new Set(found.filter((r) => r.created && r.tracked).map((r) => r.id)),
    );
    const read = readCreatedOrRead(statement);
    const created = new Map(read.filter((r) => r.created).map((r) => [r.row.id, r]));
    const existing = new Map(read.filter((r) => !r.created).map((r) => [`${r.row.project_id} ${r.row.email.toLowerCase()}`, r]));
    return calls.map((c) => {
      const found = new Map<string, { row: ContactRow; created: boolean }>();
      for (const f of c.fresh) {
        const key = f.row.email.toLowerCase();
        const r = created.get(f.row.id) ?? existing.get(`${f.row.project_id} ${key}`);
        if (r) found.set(key, r);
      }
      return found;
    });
  }

  /**
   * The one-statement attempt of `upsert` and `track`: a new address is created with its messages
   * (and, when tracking, the event's record and messages); an existing contact comes back unlocked,
   * with what the call would change on it. Null after a lost race.
   */
  private async createOrInspect(
    projectId: string,
    input: UpsertInput,
    entry: EntryPoint,
    now: Date,
    tracked?: { id: string; name: string; data?: Record<string, JsonValue> },
  ): Promise<{ created?: WriteResult; existing?: WriteResult } | null> {
    const fresh = freshContact(projectId, input, entry, now);
    const { value } = await this.writer.single(
      (out) => {
        out.change(fresh.row, "created", fresh.changed, now);
        if (tracked) emitTracked(out, fresh.row, tracked.name, fresh.outcome, now, tracked.id, tracked.data);
      },
      async (sql, outbox) => {
        const event = tracked ? eventRecord(tracked.id, fresh.row, tracked.name, fresh.outcome, now, tracked.data) : null;
        const read = await contactsRepo.createOrRead(sql, fresh.row, event, outbox);
        return { wrote: read?.created === true, value: read };
      },
    );
    if (!value) return null;
    if (value.created) return { created: { ...fresh, row: value.row } };
    // as `upsertContact`: the address given names the contact, it never renames it
    const patch = { subscribed: input.subscribed, data: input.data, topics: input.topics, catalog: input.catalog, caller: input.caller };
    const { outcome, changed } = contactChanges(value.row, patch, entry);
    return { existing: { row: value.row, isNew: false, changed, outcome } };
  }

  /** PATCH /contacts/{id}: null when the contact is not in the project. */
  async update(projectId: string, id: string, given: ContactPatch): Promise<WriteResult | null> {
    if (!isId(id)) return null;
    await this.admitKeys(projectId, given.data, "api");
    const patch = await this.withCatalog(projectId, given);
    try {
      return await this.writer.run(async (tx, out) => {
        const current = await contactsRepo.byId(tx, projectId, id, true);
        return current ? changeContact(tx, out, current, patch, "api", this.clock()) : null;
      });
    } catch (err) {
      // Two renames to one address at once: the unique index decides, and the loser gets the 409.
      if (isEmailClash(err)) throw emailTaken();
      throw err;
    }
  }

  /**
   * Deletes the contact; its memberships go with it (foreign keys), so their exit events are emitted
   * here, under the contact's evaluation lock so that no evaluation adds a membership in between.
   */
  async remove(projectId: string, id: string): Promise<ContactRow | null> {
    if (!isId(id)) return null;
    return this.writer.run(async (tx, out) => {
      await locks.contact(tx, id);
      const left = await membersRepo.segmentsOfContact(tx, projectId, id);
      const row = await contactsRepo.delete(tx, projectId, id);
      if (!row) return null;
      const now = this.clock();
      for (const segment of left) out.segment(row, segment, "exit", now);
      out.change(row, "deleted", [], now);
      return row;
    });
  }

  async setSubscription(projectId: string, id: string, subscribed: boolean, reason?: UnsubscribeReason, via?: SubscriptionVia) {
    if (!isId(id)) return null;
    return this.writer.run(async (tx, out) => {
      const current = await contactsRepo.byId(tx, projectId, id, true);
      return current ? setSubscription(tx, out, current, subscribed, this.clock(), reason, via) : null;
    });
  }

  /** Merges topic choices made through a link or the manage page (contacts.topics.set). */
  async setTopics(projectId: string, id: string, topics: Record<string, boolean>, via?: SubscriptionVia) {
    if (!isId(id)) return null;
    const catalog = await this.topics.catalog(projectId);
    return this.writer.run(async (tx, out) => {
      const current = await contactsRepo.byId(tx, projectId, id, true);
      return current ? setTopics(tx, out, current, topics, catalog, this.clock(), via) : null;
    });
  }

  /**
   * /v1/track: upsert the contact, record the event (every time), publish it. With a public key
   * (`input.caller`) the call may create a contact, subscribed or not, and unsubscribe one, but
   * not resubscribe one. With double opt-in on, a public key's subscription (a new contact it does
   * not create unsubscribed, or `subscribed: true` for an unsubscribed one) mails a confirmation
   * link instead, and the contact stays unsubscribed until it is clicked.
   */
  async track(projectId: string, input: UpsertInput & { event: string }, idempotencyId?: string): Promise<TrackResult> {
    if (isReservedEventName(input.event)) {
      const message = `"${input.event}" is a reserved system event name and cannot be tracked`;
      throw AppError.validation(message, [{ path: "event", message: "reserved event name" }], "reserved_event");
    }
    return this.record(projectId, input, idempotencyId);
  }

  /**
   * A signup form's submission (decisions.md §17): written as a public key's /v1/track would write
   * it (never resubscribes; double opt-in applies), recording `form.submitted` with `eventData` (the
   * form and its fields) rather than the contact data.
   */
  async submitForm(projectId: string, input: Omit<UpsertInput, "caller"> & { eventData: Record<string, JsonValue> }): Promise<TrackResult> {
    // unlike /v1/track, a form names topics: the contact write needs the project's catalog for them
    const withTopics = await this.withCatalog(projectId, input);
    return this.record(projectId, { ...withTopics, caller: "public", event: "form.submitted" });
  }

  private async record(projectId: string, input: UpsertInput & { event: string; eventData?: Record<string, JsonValue> }, idempotencyId?: string): Promise<TrackResult> {
    const registering = this.admitKeys(projectId, input.data, "track");
    if (registering) await registering; // hot path: no await when the keys are known
    const confirmFirst = input.caller === "public" && input.subscribed !== false && (await this.optIn.enabled(projectId));
    // With an Idempotency-Key the gateway's claim id (a UUIDv7, the same on every attempt) is the
    // event's id: an attempt after one whose answer was lost meets the first's event at its
    // primary key, writes nothing (its whole statement or transaction fails) and answers as the first did.
    const eventId = idempotencyId ?? newId();
    let written: { row: ContactRow; created: boolean } | undefined;
    let result: TrackResult;
    try {
      result = await this.trackWrite(projectId, { ...input, confirmFirst }, eventId, (row, created) => (written = { row, created }));
    } catch (err) {
      const first = isRecordedEvent(err) ? await this.writer.run((tx) => eventsRepo.get(tx, projectId, eventId)) : null;
      if (!first) throw err;
      return { contact: first.contact_id, event: first.id, timestamp: first.created_at.toISOString() };
    }
    if (confirmFirst && written && asksToSubscribe(written.created ? undefined : written.row.subscribed, input.subscribed, "track")) {
      await this.optIn.confirm(written.row, result.event);
    }
    return result;
  }

  private async trackWrite(
    projectId: string,
    input: UpsertInput & { event: string; eventData?: Record<string, JsonValue> },
    id: string,
    seen: (row: ContactRow, created: boolean) => void,
  ): Promise<TrackResult> {
    const now = this.clock();
    const answer = (contact: ContactRow, created = false): TrackResult => {
      seen(contact, created);
      return { contact: contact.id, event: id, timestamp: now.toISOString() };
    };
    const first = await this.createOrInspect(projectId, input, "track", now, { id, name: input.event, data: input.eventData });
    if (first?.created) return answer(first.created.row, true);
    const current = first?.existing;
    if (current && current.changed.length === 0) {
      // a contact the call leaves as it is: the event alone, guarded by the contact still existing
      const recorded = await this.writer.single(
        (out) => emitTracked(out, current.row, input.event, current.outcome, now, id, input.eventData),
        async (sql, outbox) => {
          const wrote = await eventsRepo.insertIfContact(sql, eventRecord(id, current.row, input.event, current.outcome, now, input.eventData), outbox);
          return { wrote, value: wrote };
        },
      );
      if (recorded.wrote) return answer(current.row);
    }
    return this.writer.run(async (tx, out) => {
      const { row, outcome, isNew } = await upsertContact(tx, out, projectId, input, "track", now);
      await eventsRepo.insert(tx, eventRecord(id, row, input.event, outcome, now, input.eventData));
      emitTracked(out, row, input.event, outcome, now, id, input.eventData);
      return answer(row, isNew);
    });
  }
}

/**
 * The stored record keeps only what the call stored; one-shot values travel on the event alone. An
 * event with data of its own (`form.submitted`) keeps that instead.
 */
const eventRecord = (id: string, contact: ContactRow, name: string, outcome: DataOutcome, now: Date, own?: Record<string, JsonValue>): EventRow => ({
  id,
  project_id: contact.project_id,
  contact_id: contact.id,
  name,
  data: own ?? outcome.given,
  created_at: now,
});

function emitTracked(out: Outgoing, contact: ContactRow, name: string, outcome: DataOutcome, now: Date, id: string, own?: Record<string, JsonValue>): void {
  out.custom(contact, name, own ?? { ...outcome.given, ...outcome.oneShot }, now, id);
  out.change(contact, "event", [`event.${name}`], now, name);
}
