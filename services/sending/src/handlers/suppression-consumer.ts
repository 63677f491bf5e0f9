import { EventEnvelope, type WireNames } from "@mailroom/contracts";
import { PoisonMessage, type ConsumerSpec } from "@mailroom/kit";
import type { SuppressionChecks } from "../usecases/lookups.js";

/**
 * `contact.subscribed` lifts the bounce suppressions of the address that are older than the event:
 * the contact was resubscribed (PATCH /contacts, /v1/track, /v1/send or the subscribe page). A
 * complaint stays: a resubscription made with an API key does not take back the recipient's
 * complaint (the subscribe page lifts it itself).
 */
export function suppressionConsumer(names: WireNames, suppressions: SuppressionChecks): ConsumerSpec {
  return {
    stream: names.streams.events.name,
    durable: names.consumers.sendingSuppression,
    filterSubject: names.subjects.eventsOfFamily("contact"),
    concurrency: 4,
    async handle(msg) {
      const parsed = EventEnvelope.safeParse(msg.json());
      if (!parsed.success) throw new PoisonMessage("not an event envelope");
      const e = parsed.data;
      if (e.name !== "contact.subscribed" || !e.email) return;
      await suppressions.lift(e.projectId, [e.email], new Date(e.occurredAt), false);
    },
  };
}
