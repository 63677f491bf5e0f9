import type { WireNames } from "@mailroom/contracts";
import type { OutboxRelay } from "@mailroom/kit";
import type { Q } from "../db/contacts-repo.js";
import { Outgoing } from "./outgoing.js";

/** Runs one write: state change and its outgoing messages in one transaction, published once it commits. */
export class Writer {
  constructor(
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
}
