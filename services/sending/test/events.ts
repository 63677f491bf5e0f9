import { connect } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { wireNames, type EventEnvelope, type EventFamily } from "@mailroom/contracts";
import { eventsOf } from "@mailroom/kit";
import { waitFor, type Drain } from "@mailroom/testkit";

/** The events of one family and project on the EVENTS stream, once `count` match `predicate`. */
export async function familyEvents(
  prefix: string,
  family: EventFamily,
  projectId: string,
  predicate: (e: EventEnvelope) => boolean,
  count = 1,
  timeoutMs = 15_000,
) {
  const names = wireNames(prefix);
  const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
  try {
    return await waitFor(
      async () => {
        const consumer = await jetstream(nc).consumers.get(names.streams.events.name, {
          // a string (not an array) becomes filter_subject, which nats-server 2.9 supports
          filter_subjects: names.subjects.event(family, projectId),
        });
        const found: EventEnvelope[] = [];
        const info = await consumer.info(true);
        let left = info.num_pending;
        while (left > 0) {
          const batch = await consumer.fetch({ max_messages: Math.min(left, 256), expires: 2000 });
          for await (const m of batch) {
            for (const e of eventsOf(m)) if (predicate(e)) found.push(e);
            left = m.info.pending;
          }
        }
        return found.length >= count ? found : null;
      },
      { timeoutMs, intervalMs: 250, what: `${count} ${family} event(s) of project ${projectId}` },
    );
  } finally {
    await nc.close();
  }
}

/** The email events of one project on the EVENTS stream, once `count` match `predicate`. */
export const emailEvents = (prefix: string, projectId: string, predicate: (e: EventEnvelope) => boolean, count = 1) =>
  familyEvents(prefix, "email", projectId, predicate, count);

/**
 * Every event matching `predicate` once every outbox row committed so far is published: for "emitted
 * exactly once" checks after the writes that would emit them have committed (a record read through
 * the API, an inbound report answered).
 */
export async function settledEvents(drain: Drain, prefix: string, family: EventFamily, projectId: string, predicate: (e: EventEnvelope) => boolean) {
  await drain.through();
  return familyEvents(prefix, family, projectId, predicate, 0);
}
