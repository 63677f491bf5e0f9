import { AppError, type SystemEmailRpcReply, type SystemEmailRpcRequest } from "@mailroom/contracts";
import { newId } from "@mailroom/kit";
import { emailsRepo } from "../db/emails-repo.js";
import { messageIdFor } from "../domain/compose.js";
import type { Ctx } from "./context.js";
import { queueEmails } from "./queue-email.js";

/**
 * sending.systemEmail: Mailroom's own mail to a person (an invitation), from SYSTEM_FROM. The
 * project's sender domains do not apply (the address is the installation's, not the project's),
 * nor tracking; suppressions do. Stored as the project's transactional email, idempotent by key.
 */
export async function sendSystemEmail(ctx: Ctx, req: SystemEmailRpcRequest): Promise<SystemEmailRpcReply> {
  const existing = (await emailsRepo.idsByIdempotencyKeys(ctx.sql, req.projectId, [req.idempotencyKey])).get(req.idempotencyKey);
  if (existing) return { emailId: existing };
  const id = newId();
  const queued = await queueEmails(ctx, [
    {
      id,
      projectId: req.projectId,
      contactId: null,
      to: req.to,
      toName: null,
      from: ctx.systemFrom,
      fromName: "Mailroom",
      replyTo: null,
      subject: req.subject,
      html: req.html,
      links: [],
      headers: {},
      attachmentIds: [],
      templateId: null,
      campaignId: null,
      workflowId: null,
      executionId: null,
      sourceType: "TRANSACTIONAL",
      marketing: false,
      idempotencyKey: req.idempotencyKey,
      messageId: messageIdFor(id, ctx.returnPathDomain),
    },
  ]);
  if (queued.has(id)) return { emailId: id };
  // a concurrent call with the same key queued it first
  const first = (await emailsRepo.idsByIdempotencyKeys(ctx.sql, req.projectId, [req.idempotencyKey])).get(req.idempotencyKey);
  if (!first) throw new AppError("INTERNAL_ERROR", "The email could not be queued");
  return { emailId: first };
}
