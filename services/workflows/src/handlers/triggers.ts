import { EventEnvelope, type WireNames } from "@mailroom/contracts";
import { type BatchConsumerSpec, PoisonMessage } from "@mailroom/kit";
import type { ContactEvent, TriggerEvents } from "../usecases/triggers.js";

/**
 * The `workflows-triggers` durable consumer of every event family (custom, email, contact, segment).
 * It never waits for a batch to fill (a lone event is handled at once), and takes a batch only when
 * the engine has room for what it starts.
 */
export function triggersConsumer(names: WireNames, triggers: TriggerEvents, opts: { concurrency: number; batch: number }): BatchConsumerSpec<ContactEvent> {
  return {
    stream: names.streams.events.name,
    durable: names.consumers.workflowsTriggers,
    filterSubject: `${names.prefix}.events.>`,
    maxDeliver: 10,
    batch: opts.batch,
    concurrency: opts.concurrency,
    waitMs: 0,
    decode(msg) {
      let body: unknown;
      try {
        body = msg.json();
      } catch {
        throw new PoisonMessage("not an event envelope: not JSON");
      }
      const parsed = EventEnvelope.safeParse(body);
      if (!parsed.success) throw new PoisonMessage(`not an event envelope: ${parsed.error.message}`);
      // events without a contact start and resume nothing: acked unhandled
      return parsed.data.contactId ? (parsed.data as ContactEvent) : null;
    },
    ready: () => triggers.room(),
    handle: (events) => triggers.handle(events),
  };
}
