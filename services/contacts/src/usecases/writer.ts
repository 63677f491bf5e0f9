import type { WireNames } from "@mailroom/contracts";
import { type OutboxRelay, outboxRows, type Sql } from "@mailroom/kit";
import type { Q } from "../db/contacts-repo.js";
import { Outgoing } from "./outgoing.js";

/** Runs one write: state change and its outgoing messages committed together, published once committed. */
export class Writer {
  constructor(
    private readonly sql: Sql,
    private readonly outbox: OutboxRelay,
    private readonly names: WireNames,
  ) {}

  async run<T>(work: (tx: Q, out: Outgoing) => Promise<T>): Promise<T> {
    const out = new Outgoing(this.names);
    return this.outbox.transaction(async (tx, emit) => {
      const value = await work(tx, out);
      await emit(out.messages);
      return value;
    });
  }

  /**
   * A write that is one statement, without a transaction: `emit` fills the messages, then `statement`
   * runs with their outbox rows (kit `outboxInsert`), which it writes only along with its own change,
   * and says whether it wrote. The messages are published only when it did.
   */
  async single<T>(emit: (out: Outgoing) => void, statement: (sql: Q, outbox: string) => Promise<{ wrote: boolean; value: T }>) {
    const out = new Outgoing(this.names);
    emit(out);
    const { json, stored } = outboxRows(out.messages);
    const result = await statement(this.sql, json);
    if (result.wrote) this.outbox.kick(stored);
    return result;
  }

  /**
   * `single` for a statement that writes for several contacts: `emit` fills each contact's messages,
   * the statement writes a contact's outbox rows only along with that contact's change and says
   * which contacts it wrote, and only their messages are published.
   */
  async singleMany<T>(
    contactIds: string[],
    emit: (out: Outgoing, contactId: string) => void,
    statement: (sql: Q, outbox: string) => Promise<{ wrote: Set<string>; value: T }>,
  ) {
    const out = new Outgoing(this.names);
    const owners: string[] = [];
    for (const id of contactIds) {
      emit(out, id);
      while (owners.length < out.messages.length) owners.push(id);
    }
    const { json, stored } = outboxRows(out.messages, owners);
    const result = await statement(this.sql, json);
    const published = stored.filter((_, i) => result.wrote.has(owners[i]!));
    if (published.length) this.outbox.kick(published);
    return result;
  }
}
