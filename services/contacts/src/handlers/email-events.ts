import { EventEnvelope, type WireNames } from "@mailroom/contracts";
import { PoisonMessage, type ConsumerSpec } from "@mailroom/kit";
import type { ContactsService } from "../usecases/contacts-service.js";

/**
 * Durable consumer of the email events the sending service emits: keeps the email_activity
 * projection and unsubscribes after a permanent bounce or a complaint. Order between events does
 * not matter (activity keeps the first row per email and kind; unsubscription only goes one way),
 * so a few run in parallel.
 */
export function emailEventsConsumer(names: WireNames, service: ContactsService): ConsumerSpec {
  return {
    stream: names.streams.events.name,
    durable: names.consumers.contactsEmailActivity,
    filterSubject: names.subjects.eventsOfFamily("email"),
    concurrency: 4,
    async handle(msg) {
      let envelope: EventEnvelope;
      try {
        envelope = EventEnvelope.parse(msg.json());
      } catch (err) {
        throw new PoisonMessage(`not an event envelope: ${String(err)}`);
      }
      await service.applyEmailEvent(envelope);
    },
  };
}
