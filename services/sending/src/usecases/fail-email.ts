import { eventMessage } from "@mailroom/kit";
import { deliveriesRepo } from "../db/deliveries-repo.js";
import { emailEvent } from "../domain/events.js";
import type { Ctx } from "./context.js";

/**
 * Marks a queued email FAILED and emits `email.failed` in the same transaction, so every email ends
 * with an event (campaign completion counts them; workflows can trigger on them). No event when the
 * record had not moved: sent or failed already, or its lease is not as `token` says (see
 * `deliveriesRepo.markFailed`: the worker's token, or null when giving up on a job). Answers whether
 * it moved.
 *
 * `expired`: the relay deferred it (4xx) until its maximum age ran out (decisions.md §18). A
 * transient bounce comes first, with the relay's last answer: what a receiver of bounce events
 * expects of mail that could not be delivered in time. `email.failed` still ends the email.
 */
export async function failEmail(ctx: Ctx, emailId: string, reason: string, token: string | null, expired?: { diagnostic: string }): Promise<boolean> {
  const at = new Date();
  const failed = await ctx.outbox.transaction(async (tx, emit) => {
    const row = await deliveriesRepo.markFailed(tx, emailId, reason, token);
    if (row) {
      const bounce = expired
        ? [emailEvent(row, "email.bounce", { bounceType: "Transient", transientBounce: true, expired: true, bouncedAt: at.toISOString(), diagnostic: expired.diagnostic.slice(0, 500) }, at)]
        : [];
      const event = emailEvent(row, "email.failed", { failedAt: at.toISOString(), reason }, at);
      await emit([...bounce, event].map((e) => eventMessage(ctx.names, e)));
    }
    return row;
  });
  if (!failed) return false;
  ctx.metrics.emails.inc({ project: failed.projectId, status: "failed" });
  return true;
}
