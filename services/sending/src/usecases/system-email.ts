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
  const existing = await emailByKey(ctx, req.projectId, req.idempotencyKey);
  if (existing) return { emailId: existing };
  return queueOwnEmail(ctx, {
    id: newId(),
    projectId: req.projectId,
    contactId: null,
    to: req.to,
    from: ctx.systemFrom,
    fromName: "Mailroom",
    replyTo: null,
    subject: req.subject,
    html: req.html,
    templateId: null,
    idempotencyKey: req.idempotencyKey,
  });
}

export function emailByKey(ctx: Ctx, projectId: string, key: string): Promise<string | undefined> {
  return emailsRepo.idsByIdempotencyKeys(ctx.sql, projectId, [key]).then((ids) => ids.get(key));
}

/**
 * One transactional email of Mailroom's own (an invitation, a double opt-in confirmation): untracked,
 * no attachments, idempotent by key. Answers the email the key names, this one or the one a
 * concurrent call with the same key queued first.
 */
export async function queueOwnEmail(
  ctx: Ctx,
  m: {
    id: string;
    projectId: string;
    contactId: string | null;
    to: string;
    from: string;
    fromName: string | null;
    replyTo: string | null;
    subject: string;
    html: string;
    templateId: string | null;
    idempotencyKey: string;
  },
): Promise<{ emailId: string }> {
  const queued = await queueEmails(ctx, [
    {
      ...m,
      toName: null,
      links: [],
      headers: {},
      attachmentIds: [],
      campaignId: null,
      workflowId: null,
      executionId: null,
      sourceType: "TRANSACTIONAL",
      marketing: false,
      messageId: messageIdFor(m.id, ctx.returnPathDomain),
    },
  ]);
  if (queued.has(m.id)) return { emailId: m.id };
  const first = await emailByKey(ctx, m.projectId, m.idempotencyKey);
  if (!first) throw new AppError("INTERNAL_ERROR", "The email could not be queued");
  return { emailId: first };
}
