import { eventsOf, type ConsumerSpec } from "@mailroom/kit";
import { suppressionsRepo } from "../db/suppressions-repo.js";
import type { Ctx } from "../usecases/context.js";

/**
 * `contact.subscribed` lifts the bounce suppressions of the address that are older than the event:
 * the contact was resubscribed (PATCH /contacts, /v1/track, /v1/send or the subscribe page). A
 * complaint stays: a resubscription made with an API key does not take back the recipient's
 * complaint (the subscribe page lifts it itself).
 */
export function suppressionConsumer(ctx: Ctx): ConsumerSpec {
  return {
    stream: ctx.names.streams.events.name,
    durable: ctx.names.consumers.sendingSuppression,
    filterSubject: ctx.names.subjects.eventsOfFamily("contact"),
    concurrency: 4,
    async handle(msg) {
      for (const e of eventsOf(msg)) {
        if (e.name !== "contact.subscribed" || !e.email) continue;
        await suppressionsRepo.lift(ctx.sql, e.projectId, [e.email], new Date(e.occurredAt), ["bounce"]);
      }
    },
  };
}
