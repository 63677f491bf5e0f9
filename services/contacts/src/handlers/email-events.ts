import { EventEnvelope, type WireNames } from "@mailroom/contracts";
import { PoisonMessage, type BatchConsumerSpec } from "@mailroom/kit";
import type { EmailActivityProjection } from "../usecases/email-activity.js";

/**
 * Durable consumer of the email events the sending service emits: keeps the email_activity
 * projection and unsubscribes after a permanent bounce or a complaint. Order between events does
 * not matter (activity keeps the first row per email and kind; unsubscription only goes one way),
 * so events are applied a batch per transaction: at campaign rates that is a few transactions a
 * second instead of thousands. A batch waits at most `waitMs` to fill, which bounds the lag a
 * lone event sees. An envelope that does not parse is terminated alone; the rest of its batch goes on.
 */
export function emailEventsConsumer(names: WireNames, projection: EmailActivityProjection): BatchConsumerSpec<EventEnvelope> {
  return {
    stream: names.streams.events.name,
    durable: names.consumers.contactsEmailActivity,
    filterSubject: names.subjects.eventsOfFamily("email"),
    batch: 500,
    waitMs: 1000,
    maxDeliver: 10,
    // A throw here (not JSON, not an envelope) terminates that message alone.
    decode(msg) {
      const parsed = EventEnvelope.safeParse(msg.json());
      if (!parsed.success) throw new PoisonMessage(`not an event envelope: ${parsed.error.message}`);
      return parsed.data;
    },
    handle: (events) => projection.apply(events),
  };
}

