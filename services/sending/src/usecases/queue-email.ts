import { AppError } from "@mailroom/contracts";
import { enqueue, eventMessage } from "@mailroom/kit";
import { emailEvent } from "../domain/events.js";
import type { NewEmail } from "../db/emails-repo.js";
import { domainOf } from "../domain/domains.js";
import type { Ctx } from "./context.js";

/**
 * The delivery job on SEND_JOBS. Compatibility: workers of the previous release read jobs queued by
 * the next one during a rolling upgrade, so fields are only ever added. The record holds the rest.
 */
export interface SendJob {
  emailId: string;
  projectId: string;
}

/**
 * Makes an email durable: its record and its job in one transaction (the job leaves through the
 * outbox with msgID = email id, so a second publish of it is dropped by JetStream). False when the
 * idempotency key already had a record: nothing is queued then.
 */
export async function queueEmail(ctx: Ctx, given: NewEmail): Promise<boolean> {
  const email = await withSuppression(ctx, given);
  const job: SendJob = { emailId: email.id, projectId: email.projectId };
  const inserted = await ctx.sql.begin(async (tx) => {
    const ok = await ctx.emails.insertQueued(tx as never, email);
    if (ok && !email.failure) await enqueue(tx, [{ id: email.id, subject: ctx.names.subjects.sendJob(email.projectId), payload: job }]);
    if (ok && email.failure) {
      // A suppressed email ends here: its terminal event goes out with the record.
      const at = new Date();
      const failed = emailEvent(email, "email.failed", { failedAt: at.toISOString(), reason: email.failure }, at);
      await enqueue(tx, [eventMessage(ctx.names, failed)]);
    }
    return ok;
  });
  if (inserted) ctx.outbox.kick();
  return inserted as boolean;
}

/**
 * A suppressed address gets a FAILED record with the reason instead of a delivery job (README:
 * Suppression), so the caller still sees an email id and the record says why nothing was sent.
 */
async function withSuppression(ctx: Ctx, email: NewEmail): Promise<NewEmail> {
  const block = await ctx.suppressions.blocking(email.projectId, email.to, email.marketing);
  if (!block) return email;
  const what = block.reason === "bounce" ? "a permanent bounce" : "a complaint";
  return { ...email, failure: `suppressed: the address had ${what} on ${block.createdAt}` };
}

/** 403 unless the sender's domain is verified in this very project. */
export async function assertSenderVerified(ctx: Ctx, projectId: string, from: string): Promise<void> {
  const domain = domainOf(from);
  if (!(await ctx.domains.isVerified(projectId, domain))) {
    throw new AppError("DOMAIN_NOT_VERIFIED", `The domain ${domain} is not verified in this project`);
  }
}
