import type { JsMsg } from "@nats-io/jetstream";
import { EventEnvelope } from "@mailroom/contracts";
import { PoisonMessage, type BatchConsumerSpec } from "@mailroom/kit";
import { emailEventsRepo } from "../db/email-events-repo.js";
import { timelineEvent, type TimelineEvent } from "../domain/email-events.js";
import type { Ctx } from "../usecases/context.js";

/** Families that can name an email: email events, and unsubscribes through an email's link. */
const FAMILIES = new Set(["email", "contact"]);

/**
 * `sending-email-events`: stores every email event in its email's timeline and counts it into the
 * hourly buckets of /stats, a batch per transaction (acked after commit). Redelivery is harmless:
 * an event id already stored counts nothing. nats-server 2.9 takes one filter subject, so it reads
 * the whole EVENTS stream and skips the other families by their subject token, as campaigns-stats does.
 */
export function emailEventsConsumer(ctx: Ctx): BatchConsumerSpec<TimelineEvent> {
  return {
    stream: ctx.names.streams.events.name,
    durable: ctx.names.consumers.sendingEmailEvents,
    filterSubject: `${ctx.names.prefix}.events.>`,
    batch: 500,
    // bounds the lag a lone event sees on the dashboard
    waitMs: 500,
    // a dropped event is a count lost for good: retried for about two hours (a database outage)
    // before it goes to the dead-letter subject, from where it can be replayed
    maxDeliver: 30,
    retryDelayMs: (attempt) => Math.min(300_000, 1000 * 2 ** (attempt - 1)),
    decode,
    handle: async (events) => {
      await emailEventsRepo.record(ctx.sql, events);
    },
  };
}

function decode(msg: JsMsg): TimelineEvent | null {
  // `<prefix>.events.<family>.<projectId>`: the prefix has no dots.
  if (!FAMILIES.has(msg.subject.split(".")[2] ?? "")) return null;
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    throw new PoisonMessage("not JSON");
  }
  const parsed = EventEnvelope.safeParse(body);
  if (!parsed.success) throw new PoisonMessage(`not an event envelope: ${parsed.error.message}`);
  return timelineEvent(parsed.data);
}
