import {
  AppError,
  type EnqueueBatchResult,
  type EnqueueBatchRpcReply,
  type EnqueueBatchRpcRequest,
  type EnqueueEmailRpcReply,
  type EnqueueEmailRpcRequest,
} from "@mailroom/contracts";
import { newId } from "@mailroom/kit";
import type { NewEmail } from "../db/emails-repo.js";
import { messageIdFor } from "../domain/compose.js";
import { parseTemplate } from "../domain/render.js";
import type { Ctx } from "./context.js";
import { assertSenderVerified, queueEmails } from "./queue-email.js";
import { renderEmail, trackingOn } from "./render-email.js";

/**
 * sending.enqueue: one email of a campaign or workflow through the same pipeline as /v1/send.
 * Idempotent by `idempotencyKey`: a retry gets the first email id and queues nothing.
 */
export async function enqueueEmail(ctx: Ctx, req: EnqueueEmailRpcRequest): Promise<EnqueueEmailRpcReply> {
  const { idempotencyKey, to, contactId, data, ...content } = req;
  const result = (await enqueueMany(ctx, { ...content, recipients: [{ idempotencyKey, to, contactId, data }] })).get(idempotencyKey);
  if (result instanceof AppError) throw result;
  if (!result) throw new AppError("INTERNAL_ERROR", "The email could not be queued");
  return result;
}

/**
 * sending.enqueueBatch: the recipients of one content (a page of a campaign's audience). The
 * template, sender and tracking checks run once; every new record and job commit in one transaction.
 * A recipient whose key has a record gets that record's id and nothing is queued for it.
 */
export async function enqueueBatch(ctx: Ctx, req: EnqueueBatchRpcRequest): Promise<EnqueueBatchRpcReply> {
  const results = await enqueueMany(ctx, req);
  return {
    results: req.recipients.map(({ idempotencyKey }): EnqueueBatchResult => {
      const r = results.get(idempotencyKey) ?? new AppError("INTERNAL_ERROR", "The email could not be queued");
      return r instanceof AppError ? { error: { code: r.code, message: r.message } } : r;
    }),
  };
}

/** idempotency key → the recipient's email id, or the error that kept its email from being made. */
async function enqueueMany(ctx: Ctx, req: EnqueueBatchRpcRequest): Promise<Map<string, { emailId: string } | AppError>> {
  const keys = req.recipients.map((r) => r.idempotencyKey);
  const existing = await ctx.emails.idsByIdempotencyKeys(req.projectId, keys);
  const fresh = req.recipients.filter((r) => !existing.has(r.idempotencyKey));
  const results = new Map<string, { emailId: string } | AppError>([...existing].map(([key, emailId]) => [key, { emailId }]));
  if (fresh.length > 0) {
    const template = req.templateId ? await ctx.templates.get(req.projectId, req.templateId) : null;
    if (req.templateId && !template) throw AppError.notFound("Template");
    const from = req.from ?? template?.from ?? null;
    if (!from) throw AppError.validation("No sender", [{ path: "from", message: "required when the template has no from" }]);
    await assertSenderVerified(ctx, req.projectId, from);
    const parsed = parseTemplate({ subject: req.subject ?? template!.subject, body: req.body ?? template!.body });
    const tracking = await trackingOn(ctx, req.projectId, req.tracking);

    const emails: NewEmail[] = [];
    for (const r of fresh) {
      if (results.has(r.idempotencyKey)) continue; // the same key twice in one batch: one email
      const id = newId();
      // Callers may pass contact fields (subscribed, data) under `contact`; id and email are ours.
      const given = typeof r.data.contact === "object" && r.data.contact !== null ? r.data.contact : {};
      const vars = { ...r.data, contact: { ...given, id: r.contactId, email: r.to } };
      try {
        const rendered = await renderEmail(ctx, { parsed, vars, emailId: id, projectId: req.projectId, tracking });
        emails.push({
          id,
          projectId: req.projectId,
          contactId: r.contactId,
          to: r.to,
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
          idempotencyKey: r.idempotencyKey,
          messageId: messageIdFor(id, ctx.returnPathDomain),
          links: rendered.links,
        });
        results.set(r.idempotencyKey, { emailId: id });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        results.set(r.idempotencyKey, err);
      }
    }
    const inserted = await queueEmails(ctx, emails);
    // A concurrent call with the same key won the insert: answer with its record.
    const lost = emails.filter((e) => !inserted.has(e.id)).map((e) => e.idempotencyKey!);
    for (const [key, emailId] of await ctx.emails.idsByIdempotencyKeys(req.projectId, lost)) results.set(key, { emailId });
  }
  return results;
}
