import type { WireNames } from "@mailroom/contracts";
import { eventConsumer, type BatchConsumerSpec } from "@mailroom/kit";
import { TIMELINE_EVENT_NAMES, timelineEvent, type TimelineEvent } from "../domain/email-events.js";
import type { Timelines } from "../usecases/timelines.js";

/**
 * `sending-email-events`: stores the email events in their email's timeline and counts them into
 * the hourly buckets of /stats, a batch per transaction (acked after commit). Redelivery is harmless:
 * an event id already stored counts nothing. Event batches are skipped unread: they carry the
 * delivery worker's sent records, whose timeline is the record itself and whose counters moved with
 * it (delivery/record-sent.ts). nats-server 2.9 takes one filter subject, so it reads the whole
 * EVENTS stream and skips what it has no use for by the names each message lists in its headers.
 */
export function emailEventsConsumer(names: WireNames, timelines: Timelines): BatchConsumerSpec<TimelineEvent> {
  return eventConsumer({
    names,
    durable: names.consumers.sendingEmailEvents,
    batches: "skip",
    reads: (name) => TIMELINE_EVENT_NAMES.has(name),
    batch: 500,
    // bounds the lag a lone event sees on the dashboard
    waitMs: 500,
    // a dropped event is a count lost for good: retried for about two hours (a database outage)
    // before it goes to the dead-letter subject, from where it can be replayed
    maxDeliver: 30,
    retryDelayMs: (attempt) => Math.min(300_000, 1000 * 2 ** (attempt - 1)),
    pick: timelineEvent,
    handle: (events) => timelines.record(events),
  });
}
