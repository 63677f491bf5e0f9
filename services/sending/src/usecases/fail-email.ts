import { eventMessage } from "@mailroom/kit";
import { emailsRepo } from "../db/emails-repo.js";
import { emailEvent } from "../domain/events.js";
import type { Ctx } from "./context.js";

/**
 * Marks a queued email FAILED and emits `email.failed` in the same transaction, so every email ends
 * with an event (campaign completion counts them; workflows can trigger on them). No event when the
 * record had already moved on (sent by another worker, or failed before).
 */
export async function failEmail(ctx: Ctx, emailId: string, reason: string, onlyIfUnleased = false): Promise<void> {
  const at = new Date();
  const failed = await ctx.outbox.transaction(async (tx, emit) => {
    const row = await emailsRepo.markFailed(tx, emailId, reason, onlyIfUnleased);
    if (row) {
      const event = emailEvent(row, "email.failed", { failedAt: at.toISOString(), reason }, at);
      await emit([eventMessage(ctx.names, event)]);
    }
    return row;
  });
  if (!failed) return;
  ctx.metrics.emails.inc({ project: failed.projectId, status: "failed" });
}
