import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { type DeadLetter, wireNames } from "@mailroom/contracts";

/** The dead letters a durable consumer of the installation `prefix` has stored so far, oldest first. */
export async function readDeadLetters(natsUrl: string, prefix: string, consumer: string): Promise<DeadLetter[]> {
  const names = wireNames(prefix);
  const stream = names.streams.deadLetters.name;
  const subject = names.subjects.deadLetter(consumer);
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream, { subjects_filter: subject }).catch(() => null);
    const count = info?.state.subjects?.[subject] ?? 0;
    const out: DeadLetter[] = [];
    if (count === 0) return out;
    // an ordered (ephemeral) consumer of that one subject: reading leaves nothing behind
    const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: subject });
    for await (const m of await consumer.fetch({ max_messages: count, expires: 5000 })) out.push(m.json<DeadLetter>());
    return out;
  } finally {
    await nc.close();
  }
}
