import { AppError, isReservedEventName, type ContactDataInput, type TrackResult } from "@mailroom/contracts";
import { isId, newId } from "@mailroom/kit";
import { contactsRepo, type ContactRow } from "../db/contacts-repo.js";
import { type EventRow, eventsRepo } from "../db/events-repo.js";
import { locks, membersRepo } from "../db/members-repo.js";
import type { DataOutcome, EntryPoint } from "../domain/data-rules.js";
import type { Outgoing } from "./outgoing.js";
import { changeContact, contactChanges, emailTaken, freshContact, setSubscription, upsertContact, type ContactPatch, type WriteResult } from "./write-contact.js";
import type { Writer } from "./writer.js";

export interface UpsertInput {
  email: string;
  subscribed?: boolean;
  data?: ContactDataInput;
}

const isEmailClash = (err: unknown) =>
  (err as { code?: string; constraint_name?: string })?.code === "23505" &&
  (err as { constraint_name?: string }).constraint_name === "contacts_project_email_uq";

/** The contacts service's writes. Each is one transaction with its outgoing messages. */
export class ContactsService {
  constructor(
    private readonly writer: Writer,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The common cases take one statement each: a new address is created by the first, and an existing
   * contact the call leaves as it is needs no write at all. A change, or a lost race, takes the
   * transaction.
   */
  async upsert(projectId: string, input: UpsertInput, entry: EntryPoint): Promise<WriteResult> {
    const now = this.clock();
    const fresh = freshContact(projectId, input, entry, now);
    const first = await this.writer.single(
      (out) => out.change(fresh.row, "created", fresh.changed, now),
      (sql, outbox) => created(contactsRepo.createOrRead(sql, fresh.row, null, outbox)),
    );
    if (first.value?.created) return { ...fresh, row: first.value.row };
    const current = first.value?.row;
    if (current) {
      const { outcome, changed } = contactChanges(current, input, entry);
      if (changed.length === 0) return { row: current, isNew: false, changed, outcome };
    }
    return this.writer.run((tx, out) => upsertContact(tx, out, projectId, input, entry, now));
  }

  /** PATCH /contacts/{id}: null when the contact is not in the project. */
  async update(projectId: string, id: string, patch: ContactPatch): Promise<WriteResult | null> {
    if (!isId(id)) return null;
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

  async setSubscription(projectId: string, id: string, subscribed: boolean, reason?: "bounce" | "complaint") {
    if (!isId(id)) return null;
    return this.writer.run(async (tx, out) => {
      const current = await contactsRepo.byId(tx, projectId, id, true);
      return current ? setSubscription(tx, out, current, subscribed, this.clock(), reason) : null;
    });
  }

  /** /v1/track: upsert the contact, record the event (every time), publish it. */
  async track(projectId: string, input: UpsertInput & { event: string }): Promise<TrackResult> {
    if (isReservedEventName(input.event)) {
      const message = `"${input.event}" is a reserved system event name and cannot be tracked`;
      throw AppError.validation(message, [{ path: "event", message: "reserved event name" }], "reserved_event");
    }
    const now = this.clock();
    const id = newId();
    const answer = (contact: ContactRow): TrackResult => ({ contact: contact.id, event: id, timestamp: now.toISOString() });
    const fresh = freshContact(projectId, input, "track", now);
    const first = await this.writer.single(
      (out) => {
        out.change(fresh.row, "created", fresh.changed, now);
        emitTracked(out, fresh.row, input.event, fresh.outcome, now, id);
      },
      (sql, outbox) => created(contactsRepo.createOrRead(sql, fresh.row, eventRecord(id, fresh.row, input.event, fresh.outcome, now), outbox)),
    );
    if (first.value?.created) return answer(first.value.row);
    const current = first.value?.row;
    if (current) {
      // a contact the call leaves as it is: the event alone, guarded by the contact still existing
      const { outcome, changed } = contactChanges(current, input, "track");
      if (changed.length === 0) {
        const recorded = await this.writer.single(
          (out) => emitTracked(out, current, input.event, outcome, now, id),
          async (sql, outbox) => {
            const wrote = await eventsRepo.insertIfContact(sql, eventRecord(id, current, input.event, outcome, now), outbox);
            return { wrote, value: wrote };
          },
        );
        if (recorded.wrote) return answer(current);
      }
    }
    return this.writer.run(async (tx, out) => {
      const { row, outcome } = await upsertContact(tx, out, projectId, input, "track", now);
      await eventsRepo.insert(tx, eventRecord(id, row, input.event, outcome, now));
      emitTracked(out, row, input.event, outcome, now, id);
      return answer(row);
    });
  }
}

/** `createOrRead` as a one-statement write: it wrote when it created the contact. */
const created = async (read: Promise<{ row: ContactRow; created: boolean } | null>) => {
  const value = await read;
  return { wrote: value?.created === true, value };
};

/** The stored record keeps only what the call stored; one-shot values travel on the event alone. */
const eventRecord = (id: string, contact: ContactRow, name: string, outcome: DataOutcome, now: Date): EventRow => ({
  id,
  project_id: contact.project_id,
  contact_id: contact.id,
  name,
  data: outcome.given,
  created_at: now,
});

function emitTracked(out: Outgoing, contact: ContactRow, name: string, outcome: DataOutcome, now: Date, id: string): void {
  out.custom(contact, name, { ...outcome.given, ...outcome.oneShot }, now, id);
  out.change(contact, "event", [`event.${name}`], now, name);
}
