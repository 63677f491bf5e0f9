import type { WireNames } from "@mailroom/contracts";
import { type BatchConsumerSpec, eventConsumer } from "@mailroom/kit";
import type { ContactEvent, TriggerEvents } from "../usecases/triggers.js";

/**
 * The `workflows-triggers` durable consumer of every event family (custom, email, contact, segment).
 * It never waits for a batch to fill (a lone event is handled at once), and takes a batch only when
 * the engine has room for what it starts.
 */
export function triggersConsumer(names: WireNames, triggers: TriggerEvents, opts: { concurrency: number; batch: number }): BatchConsumerSpec<ContactEvent> {
  return eventConsumer({
    names,
    durable: names.consumers.workflowsTriggers,
    maxDeliver: 10,
    batch: opts.batch,
    concurrency: opts.concurrency,
    waitMs: 0,
    // events without a contact start and resume nothing: acked unhandled
    pick: (event) => (event.contactId ? (event as ContactEvent) : null),
    ready: () => triggers.room(),
    handle: (events) => triggers.handle(events),
  });
}
