import type { StoredMessage } from "@mailroom/devmailbox";

export interface DeliveryReport {
  /** Expected recipients with no message. */
  missing: string[];
  /** Recipients that got more than one distinct email (different Message-IDs): a real double send. */
  doubled: string[];
  /** Message-IDs seen for more than one recipient. */
  sharedIds: string[];
  /** Messages to addresses nobody expected. */
  unexpected: string[];
  /** Copies beyond the first of one Message-ID (the relay hand-off window of a killed worker). */
  repeatedCopies: number;
  delivered: number;
}

/**
 * What the sink holds for `expected`, counted by envelope recipient and by Message-ID. Exactly once
 * means: nothing missing, nothing doubled or shared, nothing unexpected and no repeated copy.
 */
export function deliveryReport(messages: StoredMessage[], expected: Iterable<string>, allowed: Iterable<string> = []): DeliveryReport {
  const want = new Set([...expected].map((a) => a.toLowerCase()));
  const tolerated = new Set([...allowed].map((a) => a.toLowerCase()));
  const idsByRecipient = new Map<string, Set<string>>();
  const recipientsById = new Map<string, Set<string>>();
  let copies = 0;
  const unexpected: string[] = [];
  for (const m of messages) {
    for (const raw of m.envelope.rcptTo) {
      const to = raw.toLowerCase();
      if (!want.has(to)) {
        if (!tolerated.has(to)) unexpected.push(to);
        continue;
      }
      copies++;
      const id = m.messageId ?? `(none:${m.id})`;
      idsByRecipient.set(to, (idsByRecipient.get(to) ?? new Set()).add(id));
      recipientsById.set(id, (recipientsById.get(id) ?? new Set()).add(to));
    }
  }
  return {
    missing: [...want].filter((a) => !idsByRecipient.has(a)),
    doubled: [...idsByRecipient].filter(([, ids]) => ids.size > 1).map(([a]) => a),
    sharedIds: [...recipientsById].filter(([, rs]) => rs.size > 1).map(([id]) => id),
    unexpected,
    repeatedCopies: copies - idsByRecipient.size,
    delivered: idsByRecipient.size,
  };
}
