import { type EventEnvelope, isWebhookEvent, type WireNames } from "@mailroom/contracts";
import { type BatchConsumerSpec, eventConsumer } from "@mailroom/kit";
import type { WebhookFanOut } from "../usecases/webhook-events.js";

/**
 * The `workflows-webhooks` durable consumer of every event family: system events become webhook
 * deliveries (custom /v1/track events are the workflows' own, never sent to endpoints). Its own
 * durable, so webhook fan-out neither waits for nor holds up workflow triggers.
 */
export function webhookEventsConsumer(names: WireNames, fanOut: WebhookFanOut): BatchConsumerSpec<EventEnvelope> {
  return eventConsumer({
    names,
    durable: names.consumers.workflowsWebhooks,
    maxDeliver: 10,
    // messages, not events: an event batch carries up to a thousand, each a delivery body per
    // matching endpoint, and the service's heap is a few hundred MB
    batch: 16,
    concurrency: 2,
    waitMs: 0,
    reads: isWebhookEvent,
    pick: (event) => (isWebhookEvent(event.name) ? event : null),
    handle: (events) => fanOut.handle(events),
  });
}
