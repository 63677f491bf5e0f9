import type { EventEnvelope, WireNames } from "@mailroom/contracts";
import { eventConsumer, type BatchConsumerSpec } from "@mailroom/kit";
import { isActivityEvent } from "../domain/email-activity.js";
import type { EmailActivityProjection } from "../usecases/email-activity.js";

/**
 * Durable consumer of the email events the sending service emits: keeps the email_activity
 * projection and unsubscribes after a permanent bounce or a complaint. Order between events does
 * not matter (activity keeps the first row per email and kind; unsubscription only goes one way),
 * so events are applied a batch per transaction: at campaign rates that is a few transactions a
 * second instead of thousands. A batch waits at most `waitMs` to fill, which bounds the lag a
 * lone event sees. A message that does not parse is terminated alone; the rest of its batch goes on.
 */
export function emailEventsConsumer(names: WireNames, projection: EmailActivityProjection): BatchConsumerSpec<EventEnvelope> {
  return eventConsumer({
    names,
    family: "email",
    durable: names.consumers.contactsEmailActivity,
    reads: isActivityEvent,
    batch: 500,
    waitMs: 1000,
    maxDeliver: 10,
    pick: (event) => event,
    handle: (events) => projection.apply(events),
  });
}
