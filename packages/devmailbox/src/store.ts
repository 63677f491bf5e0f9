import type { StoredMessage } from "./types.js";

export type MessagePredicate = (message: StoredMessage) => boolean;

interface Waiter {
  predicate: MessagePredicate;
  count: number;
  resolve: (matches: StoredMessage[]) => void;
  reject: (error: unknown) => void;
}

/**
 * A bounded in-memory inbox. It is a ring buffer so that a mailbox left running under
 * `npm start` for days, or a long test run, cannot grow without limit.
 */
export class MessageStore {
  private readonly items: StoredMessage[] = [];
  private readonly byId = new Map<string, StoredMessage>();
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly maxMessages: number) {
    if (!Number.isInteger(maxMessages) || maxMessages < 1) {
      throw new RangeError(`maxMessages must be a positive integer, got ${maxMessages}`);
    }
  }

  /** Oldest first, the order the messages arrived in. */
  list(): StoredMessage[] {
    return [...this.items];
  }

  get(id: string): StoredMessage | undefined {
    return this.byId.get(id);
  }

  add(message: StoredMessage): void {
    this.items.push(message);
    this.byId.set(message.id, message);
    while (this.items.length > this.maxMessages) {
      const dropped = this.items.shift();
      if (dropped) this.byId.delete(dropped.id);
    }
    for (const waiter of this.waiters) this.settle(waiter);
  }

  clear(): void {
    this.items.length = 0;
    this.byId.clear();
  }

  /**
   * Resolves with every stored message matching `predicate` as soon as at least `count` match,
   * including messages that arrived before the call (a test usually sends first, then waits).
   */
  waitFor(predicate: MessagePredicate, timeoutMs: number, count = 1): Promise<StoredMessage[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const found = this.items.filter(predicate).length;
        waiter.reject(new Error(`devmailbox: expected ${count} matching message(s) within ${timeoutMs} ms, found ${found}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        predicate,
        count,
        resolve: (matches) => (done(), resolve(matches)),
        reject: (error) => (done(), reject(error)),
      };
      this.waiters.add(waiter);
      this.settle(waiter);
    });
  }

  // A throwing predicate fails its own waiter, never the SMTP transaction that triggered the check.
  private settle(waiter: Waiter): void {
    try {
      const matches = this.items.filter(waiter.predicate);
      if (matches.length >= waiter.count) waiter.resolve(matches);
    } catch (error) {
      waiter.reject(error);
    }
  }
}
