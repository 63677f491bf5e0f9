import type { WireNames } from "@mailroom/contracts";
import { enqueue, type OutboxRelay, type Sql } from "@mailroom/kit";
import type { Q } from "../db/contacts-repo.js";
import { Outgoing } from "./outgoing.js";

/** Runs one write: state change and its outgoing messages in one transaction, then wakes the relay. */
export class Writer {
  constructor(
    private readonly sql: Sql,
    private readonly outbox: OutboxRelay,
    private readonly names: WireNames,
  ) {}

  async run<T>(work: (tx: Q, out: Outgoing) => Promise<T>): Promise<T> {
    const out = new Outgoing(this.names);
    const result = await this.sql.begin(async (tx) => {
      const value = await work(tx, out);
      await enqueue(tx, out.messages);
      return value;
    });
    if (out.messages.length) this.outbox.kick();
    return result as T;
  }
}
