import type { JsMsg } from "@nats-io/jetstream";
import {
  EVENT_HEADERS,
  EventBatch,
  EventEnvelope,
  eventFamily,
  isEventEnvelope,
  type EventFamily,
  type WireNames,
} from "@mailroom/contracts";
import type { BatchConsumerSpec } from "./batch-consumer.js";
import { PoisonMessage } from "./dead-letter.js";
import { groupMessages, type GroupItem, type PendingGroup } from "./outbox-groups.js";

/**
 * Events on the EVENTS stream, one per message or many per message (an event batch, contracts
 * `EventBatch`). A write that emits thousands of events a second (the delivery worker's sent
 * records) batches them: one outbox row, one publish and one delivery per consumer for a few hundred
 * events, where one message each cost the bus, the outbox table and every consumer per event.
 */

/** A batch stays far below NATS's default 1 MB max_payload, headers and all. */
const BATCH_LIMITS = { maxBytes: 256 * 1024, maxItems: 1000 };

/** An event of a multi-row write, owned by the row whose write it reports. */
export interface OwnedEvent {
  owner: string;
  event: EventEnvelope;
}

/**
 * The events of a multi-row write as event batches: one or more per family and project (the
 * subject), in the order given, each listing the names it carries. Store them with the write
 * (`outboxGroupInsert(q, json, written)`) and publish `writtenGroups(groups, written)` after it.
 */
export function eventBatches(names: WireNames, events: OwnedEvent[]): { json: string; groups: PendingGroup[] } {
  const items: GroupItem[] = events.map(({ owner, event }) => ({
    owner,
    subject: names.subjects.event(eventFamily(event.name), event.projectId),
    json: JSON.stringify(event),
    tag: event.name,
  }));
  return groupMessages(items, {
    key: "events",
    ...BATCH_LIMITS,
    headers: (batch) => ({ [EVENT_HEADERS.batch]: "1", [EVENT_HEADERS.names]: [...new Set(batch.map((i) => i.tag))].join(",") }),
  });
}

/** The event names a message says it carries, or null when it does not say (an older producer). */
function namesOf(msg: JsMsg): string[] | null {
  const listed = msg.headers?.get(EVENT_HEADERS.names);
  return listed ? listed.split(",") : null;
}

/** Whether a message of the EVENTS stream is an event batch. */
export function isEventBatch(msg: JsMsg): boolean {
  return msg.headers?.has(EVENT_HEADERS.batch) ?? false;
}

/**
 * The events a message of the EVENTS stream carries: one, or a batch's. The envelope is checked by
 * hand first (zod's parse of thousands of events a second was a consumer's largest cost) and by the
 * schema only to say what is wrong. Throws PoisonMessage for anything else.
 */
export function eventsOf(msg: JsMsg): EventEnvelope[] {
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    throw new PoisonMessage("not an event envelope: not JSON");
  }
  if (isEventBatch(msg)) {
    const events = (body as { events?: unknown } | null)?.events;
    if (Array.isArray(events) && events.every(isEventEnvelope)) return events;
    const parsed = EventBatch.safeParse(body);
    if (!parsed.success) throw new PoisonMessage(`not an event batch: ${parsed.error.message}`);
    return parsed.data.events;
  }
  if (isEventEnvelope(body)) return [body];
  const parsed = EventEnvelope.safeParse(body);
  if (!parsed.success) throw new PoisonMessage(`not an event envelope: ${parsed.error.message}`);
  return [parsed.data];
}

export interface EventConsumerSpec<T> extends Omit<BatchConsumerSpec<T>, "stream" | "filterSubject" | "decode"> {
  names: WireNames;
  /** Only this family's events (the consumer's filter subject); every family when not given. */
  family?: EventFamily;
  /** The event names this consumer has any use for: a message listing none of them is acked unread. */
  reads?: (name: string) => boolean;
  /**
   * `skip`: batches carry events their producer has accounted for already, for this consumer (the
   * sending service records its delivery events at their source), and are acked unread.
   */
  batches?: "read" | "skip";
  /** What one event means here, or null when nothing; `from` is the message that carried it. */
  pick(event: EventEnvelope, from: EventSource): T | null;
}

/** The message an event came in. */
export interface EventSource {
  /**
   * The message's id (`Nats-Msg-Id`, its outbox row's id): the same on every redelivery and every
   * publish of that row, so a consumer that counts a batch can dedupe the batch, not each event.
   */
  messageId: string;
  batch: boolean;
}

/** A durable batch consumer of the EVENTS stream: each message's events, picked, skipped unread when they cannot matter. */
export function eventConsumer<T>(spec: EventConsumerSpec<T>): BatchConsumerSpec<T> {
  const { names, family, reads, batches = "read", pick, ...rest } = spec;
  return {
    ...rest,
    stream: names.streams.events.name,
    filterSubject: family ? names.subjects.eventsOfFamily(family) : `${names.prefix}.events.>`,
    decode(msg) {
      if (batches === "skip" && isEventBatch(msg)) return [];
      if (reads) {
        const listed = namesOf(msg);
        if (listed && !listed.some(reads)) return [];
      }
      const out: T[] = [];
      const events = eventsOf(msg);
      // a message published without an id (never by the outbox) is named by its stream position
      const from: EventSource = { messageId: msg.headers?.get("Nats-Msg-Id") || `seq:${msg.seq}`, batch: isEventBatch(msg) };
      for (const event of events) {
        if (reads && !reads(event.name)) continue;
        const value = pick(event, from);
        if (value !== null) out.push(value);
      }
      return out;
    },
  };
}
