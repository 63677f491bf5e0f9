import {
  AppError,
  type EnqueueBatchResult,
  type EnqueueBatchRpcReply,
  type EnqueueBatchRpcRequest,
  type EnqueueEmailRpcReply,
  type EnqueueEmailRpcRequest,
  FREQUENCY_CAP_REASON,
} from "@mailroom/contracts";
import { newId, type Sql } from "@mailroom/kit";
import { emailsRepo, type NewEmail } from "../db/emails-repo.js";
import { templatesRepo } from "../db/templates-repo.js";
import { messageIdFor } from "../domain/compose.js";
import { parseTemplate } from "../domain/render.js";
import type { ProjectSettings, VerifiedDomains } from "./lookups.js";
import type { EmailQueue } from "./queue-email.js";
import type { Renderer } from "./render-email.js";

/**
 * Rendering time one call may spend before answering the rest of its recipients "enqueue again"
 * (a retryable 503 each). Callers wait 5 s by default (RPC_TIMEOUT_MS); a batch of slow templates
 * (each render up to LIQUID_RENDER_LIMIT_MS) then still answers in time, with the recipients it
 * got to, instead of timing out and being sent again whole, for ever.
 */
const RENDER_BUDGET_MS = 1000;

/** The RPCs campaigns and workflows send through: their emails take the same path as /v1/send's. */
export class Enqueue {
  constructor(
    private readonly sql: Sql,
    private readonly queue: EmailQueue,
    private readonly renderer: Renderer,
    private readonly domains: VerifiedDomains,
    private readonly returnPathDomain: string,
    private readonly settings: ProjectSettings,
  ) {}

  /**
   * sending.enqueue: one email of a campaign or workflow through the same pipeline as /v1/send.
   * Idempotent by `idempotencyKey`: a retry gets the first email id and queues nothing.
   */
  async one(req: EnqueueEmailRpcRequest): Promise<EnqueueEmailRpcReply> {
    const { idempotencyKey, to, contactId, data, ...content } = req;
    const result = (await this.many({ ...content, recipients: [{ idempotencyKey, to, contactId, data }] })).get(idempotencyKey);
    if (result instanceof AppError) throw result;
    if (!result) throw new AppError("INTERNAL_ERROR", "The email could not be queued");
    return result;
  }

  /**
   * sending.enqueueBatch: the recipients of one content (a page of a campaign's audience). The
   * template, sender and tracking checks run once; every new record and job commit in one transaction.
   * A recipient whose key has a record gets that record's id and nothing is queued for it.
   */
  async batch(req: EnqueueBatchRpcRequest): Promise<EnqueueBatchRpcReply> {
    const results = await this.many(req);
    return {
      results: req.recipients.map(({ idempotencyKey }): EnqueueBatchResult => {
        const r = results.get(idempotencyKey) ?? new AppError("INTERNAL_ERROR", "The email could not be queued");
        return r instanceof AppError ? { error: { code: r.code, message: r.message } } : r;
      }),
    };
  }

  /**
   * The project's frequency cap on marketing mail (decisions.md §18): a contact that has had `max`
   * of them in the last `days` days gets this one as a FAILED record with reason `frequency_cap`
   * (its `email.failed` says so, and the campaign counts it as skipped). One query per batch, and
   * none when the project has no cap.
   */
  private async applyFrequencyCap(projectId: string, emails: NewEmail[]): Promise<void> {
    const cap = (await this.settings.get(projectId)).frequencyCap;
    if (!cap) return;
    const open = emails.filter((e) => !e.failure && e.contactId);
    const since = new Date(Date.now() - cap.days * 86_400_000);
    const counts = await emailsRepo.marketingCounts(this.sql, projectId, [...new Set(open.map((e) => e.contactId!))], since);
    for (const e of open) {
      const had = counts.get(e.contactId!) ?? 0;
      if (had >= cap.max) e.failure = FREQUENCY_CAP_REASON;
      else counts.set(e.contactId!, had + 1);
    }
  }

  /** idempotency key → the recipient's email id, or the error that kept its email from being made. */
  private async many(req: EnqueueBatchRpcRequest): Promise<Map<string, { emailId: string } | AppError>> {
    const keys = req.recipients.map((r) => r.idempotencyKey);
    const existing = await emailsRepo.idsByIdempotencyKeys(this.sql, req.projectId, keys);
    const fresh = req.recipients.filter((r) => !existing.has(r.idempotencyKey));
    const results = new Map<string, { emailId: string } | AppError>([...existing].map(([key, emailId]) => [key, { emailId }]));
    if (fresh.length > 0) {
      const template = req.templateId ? await templatesRepo.get(this.sql, req.projectId, req.templateId) : null;
      if (req.templateId && !template) throw AppError.notFound("Template");
      const from = req.from ?? template?.from ?? null;
      if (!from) throw AppError.validation("No sender", [{ path: "from", message: "required when the template has no from" }]);
      await this.domains.assertSender(req.projectId, from);
      const parts = { subject: req.subject ?? template!.subject, body: req.body ?? template!.body };
      const parsed = parseTemplate(parts);
      // what a record that could not be rendered shows as its subject: the source, on one line
      const sourceSubject = parts.subject.replace(/[\r\n]+/g, " ").slice(0, 998);
      const tracking = await this.renderer.trackingOn(req.projectId, req.tracking);

      const emails: NewEmail[] = [];
      const started = performance.now();
      for (const r of fresh) {
        if (results.has(r.idempotencyKey)) continue; // the same key twice in one batch: one email
        if (emails.length > 0 && performance.now() - started > RENDER_BUDGET_MS) {
          results.set(r.idempotencyKey, new AppError("SERVICE_UNAVAILABLE", "This call's rendering time ran out before this recipient; enqueue it again"));
          continue;
        }
        const id = newId();
        // Callers may pass contact fields (subscribed, data) under `contact`; id and email are ours.
        const given = typeof r.data.contact === "object" && r.data.contact !== null ? r.data.contact : {};
        const vars = { ...r.data, contact: { ...given, id: r.contactId, email: r.to } };
        // A render that fails (its data breaks the template, or it runs past its bounds) ends as a
        // FAILED record with the reason, like a suppressed address: nobody waits on this call to read it.
        let content: Pick<NewEmail, "subject" | "html" | "links" | "failure" | "screened">;
        try {
          content = await this.renderer.render({ parsed, vars, emailId: id, projectId: req.projectId, tracking });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const failure = `the template could not be rendered: ${err.details?.[0]?.message ?? err.message}`;
          content = { subject: sourceSubject, html: "", links: [], failure, screened: true };
        }
        emails.push({
          id,
          projectId: req.projectId,
          contactId: r.contactId,
          to: r.to,
          toName: null,
          from,
          fromName: req.fromName ?? (req.from ? null : (template?.fromName ?? null)),
          replyTo: req.replyTo ?? template?.replyTo ?? null,
          ...content,
          headers: {},
          attachmentIds: [],
          templateId: template?.id ?? null,
          campaignId: req.source.campaignId ?? null,
          topicId: req.topicId ?? null,
          workflowId: req.source.workflowId ?? null,
          executionId: req.source.executionId ?? null,
          sourceType: req.source.type,
          marketing: req.marketing,
          idempotencyKey: r.idempotencyKey,
          messageId: messageIdFor(id, this.returnPathDomain),
        });
        results.set(r.idempotencyKey, { emailId: id });
      }
      if (req.marketing) await this.applyFrequencyCap(req.projectId, emails);
      const inserted = await this.queue.queue(emails);
      // A concurrent call with the same key won the insert: answer with its record.
      const lost = emails.filter((e) => !inserted.has(e.id)).map((e) => e.idempotencyKey!);
      for (const [key, emailId] of await emailsRepo.idsByIdempotencyKeys(this.sql, req.projectId, lost)) results.set(key, { emailId });
    }
    return results;
  }
}
