import { ContactChange, type WireNames } from "@mailroom/contracts";
import { PoisonMessage, type ConsumerSpec } from "@mailroom/kit";
import type { MembershipTracker } from "../usecases/tracker.js";

/**
 * Durable consumer of the contact-change feed: re-evaluates the tracked segments a change can
 * affect. Order does not matter (each evaluation reads the contact's current state under its lock),
 * so several run in parallel; a redelivery finds the membership already right and emits nothing.
 */
export function segmentChangesConsumer(names: WireNames, tracker: MembershipTracker): ConsumerSpec {
  return {
    stream: names.streams.contactChanges.name,
    durable: names.consumers.segmentsChanges,
    filterSubject: names.streams.contactChanges.subjects[0],
    concurrency: 8,
    async handle(msg) {
      const parsed = ContactChange.safeParse(msg.json());
      if (!parsed.success) throw new PoisonMessage(`not a contact change: ${parsed.error.message}`);
      await tracker.onChange(parsed.data);
    },
  };
}
