import { AppError, type EnqueueEmailRpcReply, type EnqueueEmailRpcRequest } from "@mailroom/contracts";
import { newId } from "@mailroom/kit";
import { messageIdFor } from "../domain/compose.js";
import { parseTemplate } from "../domain/render.js";
import type { Ctx } from "./context.js";
import { assertSenderVerified, queueEmail } from "./queue-email.js";
import { renderEmail, trackingOn } from "./render-email.js";

/**
 * sending.enqueue: one email of a campaign or workflow through the same pipeline as /v1/send.
 * Idempotent by `idempotencyKey`: a retry gets the first email id and queues nothing.
 */
export async function enqueueEmail(ctx: Ctx, req: EnqueueEmailRpcRequest): Promise<EnqueueEmailRpcReply> {
  const existing = await ctx.emails.idByIdempotencyKey(req.projectId, req.idempotencyKey);
  if (existing) return { emailId: existing };

  const template = req.templateId ? await ctx.templates.get(req.projectId, req.templateId) : null;
  if (req.templateId && !template) throw AppError.notFound("Template");
  const from = req.from ?? template?.from ?? null;
  if (!from) throw AppError.validation("No sender", [{ path: "from", message: "required when the template has no from" }]);
  await assertSenderVerified(ctx, req.projectId, from);

  const parsed = parseTemplate({ subject: req.subject ?? template!.subject, body: req.body ?? template!.body });
  const id = newId();
  // Callers may pass contact fields (subscribed, data) under `contact`; id and email are ours.
  const given = typeof req.data.contact === "object" && req.data.contact !== null ? req.data.contact : {};
  const vars = { ...req.data, contact: { ...given, id: req.contactId, email: req.to } };
  const tracking = await trackingOn(ctx, req.projectId, req.tracking);
  const rendered = await renderEmail(ctx, { parsed, vars, emailId: id, projectId: req.projectId, tracking });
  const inserted = await queueEmail(ctx, {
    id,
    projectId: req.projectId,
    contactId: req.contactId,
    to: req.to,
    toName: null,
    from,
    fromName: req.fromName ?? (req.from ? null : (template?.fromName ?? null)),
    replyTo: req.replyTo ?? template?.replyTo ?? null,
    subject: rendered.subject,
    html: rendered.html,
    headers: {},
    attachmentIds: [],
    templateId: template?.id ?? null,
    campaignId: req.source.campaignId ?? null,
    workflowId: req.source.workflowId ?? null,
    executionId: req.source.executionId ?? null,
    sourceType: req.source.type,
    marketing: req.marketing,
    idempotencyKey: req.idempotencyKey,
    messageId: messageIdFor(id, ctx.returnPathDomain),
    links: rendered.links,
  });
  if (inserted) return { emailId: id };
  // A concurrent call with the same key won the insert.
  return { emailId: (await ctx.emails.idByIdempotencyKey(req.projectId, req.idempotencyKey))! };
}
