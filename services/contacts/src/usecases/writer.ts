import type { WireNames } from "@mailroom/contracts";
import { inOneRoundTrip, type OutboxMessage, type OutboxRelay, outboxRows, type Q, type Sql } from "@mailroom/kit";
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
   * A transaction in one round trip (kit `inOneRoundTrip`, traced as `db <span>`) whose messages are
   * each owned by a row (`owners[i]` owns `messages[i]`): `build` builds the statements, handing the
   * messages' outbox rows
   * to the one that writes each only along with its owner, and `written` reads the owners written
   * from the results. Only their messages are published.
   */
  async inOneRoundTrip<P extends readonly Promise<unknown>[]>(
    span: string,
    messages: OutboxMessage[],
    owners: string[],
    build: (tx: Q, outbox: string) => P,
    written: (results: { -readonly [K in keyof P]: Awaited<P[K]> }) => Set<string>,
  ): Promise<{ -readonly [K in keyof P]: Awaited<P[K]> }> {
    const { json, stored } = outboxRows(messages, owners);
    const results = await inOneRoundTrip(this.sql, (tx) => build(tx, json), span);
    this.outbox.kickOwned(stored, owners, written(results));
    return results;
  }

  /** The messages of a write about to be made, to pass to `inOneRoundTrip`. */
  outgoing(): Outgoing {
    return new Outgoing(this.names);
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
