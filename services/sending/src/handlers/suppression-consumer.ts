import type { WireNames } from "@mailroom/contracts";
import { eventsOf, type ConsumerSpec } from "@mailroom/kit";
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
      for (const e of eventsOf(msg)) {
        if (e.name !== "contact.subscribed" || !e.email) continue;
        await suppressions.lift(e.projectId, [e.email], new Date(e.occurredAt), false);
      }
    },
  };
}
