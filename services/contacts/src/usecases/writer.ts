import type { WireNames } from "@mailroom/contracts";
import { enqueue, type OutboxRelay, type Sql, type StoredMessage } from "@mailroom/kit";
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
    let stored: StoredMessage[] = [];
    const result = await this.sql.begin(async (tx) => {
      const value = await work(tx, out);
      stored = await enqueue(tx, out.messages);
      return value;
    });
    this.outbox.kick(stored);
    return result as T;
  }
}
