import { EventEnvelope } from "@mailroom/contracts";
import { PoisonMessage, type ConsumerSpec } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";

/**
 * `contact.subscribed` lifts the suppressions of the address that are older than the event: the
 * contact asked for mail again (PATCH /contacts, /v1/track, /v1/send or the subscribe page).
 */
export function suppressionConsumer(ctx: Ctx): ConsumerSpec {
  return {
    stream: ctx.names.streams.events.name,
    durable: ctx.names.consumers.sendingSuppression,
    filterSubject: ctx.names.subjects.eventsOfFamily("contact"),
    concurrency: 4,
    async handle(msg) {
      const parsed = EventEnvelope.safeParse(msg.json());
      if (!parsed.success) throw new PoisonMessage("not an event envelope");
      const e = parsed.data;
      if (e.name !== "contact.subscribed" || !e.email) return;
      await ctx.suppressions.lift(e.projectId, [e.email], new Date(e.occurredAt));
    },
  };
}
