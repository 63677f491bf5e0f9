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
}
