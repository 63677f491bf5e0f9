import { AppError, MAX_MESSAGE_BYTES, RESERVED_HEADERS, contactsRpc, type Mailbox, type SendEmailRequest, type SendEmailResult } from "@mailroom/contracts";
import { newId, type RpcClient, type Sql } from "@mailroom/kit";
import { messageIdFor, type StoredAttachment } from "../domain/compose.js";
import { parseTemplate, type ParsedTemplate } from "../domain/render.js";
import type { SuppressionChecks, VerifiedDomains } from "./lookups.js";
import { type EmailQueue, suppressedBecause } from "./queue-email.js";
import { attachmentsRepo } from "../db/attachments-repo.js";
import { emailsRepo, type NewEmail } from "../db/emails-repo.js";
import type { Suppression } from "../db/suppressions-repo.js";
import { templatesRepo } from "../db/templates-repo.js";
import type { Renderer } from "./render-email.js";

interface Address {
  email: string;
  name: string | null;
}

/** Everything /v1/send checked before its first side effect. */
export interface SendPlan {
  recipients: Address[];
  from: Address;
  replyTo: string | null;
  templateId: string | null;
  parsed: ParsedTemplate;
  headers: Record<string, string>;
  files: StoredAttachment[];
  tracking: boolean;
}

const address = (m: Mailbox): Address => (typeof m === "string" ? { email: m, name: null } : { email: m.email, name: m.name ?? null });

/** Base64 with 76-character lines: what an attachment weighs inside the MIME message. */
const encodedSize = (bytes: number) => Math.ceil(bytes / 3) * 4 * (78 / 76);
/** Headers, MIME boundaries and the part headers of each attachment. */
const MIME_OVERHEAD = 16 * 1024;

export interface SendDeps {
  sql: Sql;
  rpc: RpcClient;
  queue: EmailQueue;
  renderer: Renderer;
  domains: VerifiedDomains;
  suppressions: SuppressionChecks;
  returnPathDomain: string;
  /** SEND_MAX_ATTACHMENT_BYTES */
  maxAttachmentBytes: number;
}

/** A send's answer, and whether it is an earlier attempt's (the same `idempotencyId` queued before). */
export interface Sent {
  result: SendEmailResult;
  replayed: boolean;
}

/** POST /v1/send (api-spec; decisions.md §2). */
export class SendEmails {
  constructor(private readonly d: SendDeps) {}

  /**
   * A retry of a request whose first attempt queued its emails (the gateway timed out, or died,
   * before it could store the answer) gets that attempt's answer: the send happens once.
   */
  async send(projectId: string, req: SendEmailRequest, idempotencyId?: string): Promise<Sent> {
    const first = idempotencyId ? await this.sentBefore(projectId, idempotencyId, Array.isArray(req.to) ? req.to.length : 1) : null;
    if (first) return { result: first, replayed: true };
    const plan = await this.plan(projectId, req);
    return this.execute(projectId, req, plan, idempotencyId);
  }

  /**
   * Validates a /v1/send request completely — template, sender, headers, attachments, every
   * recipient — so a rejected request queues nothing (api-spec /v1/send; decisions.md §2).
   */
  private async plan(projectId: string, req: SendEmailRequest): Promise<SendPlan> {
    const template = req.template ? await templatesRepo.get(this.d.sql, projectId, req.template) : null;
    if (req.template && !template) throw AppError.validation("Template not found", [{ path: "template", message: "no such template in this project" }]);

    const subject = req.subject ?? template?.subject;
    const body = req.body ?? template?.body;
    let from: Address | null = null;
    if (req.from) from = address(req.from);
    else if (template?.from) from = { email: template.from, name: template.fromName };
    // `name` is deprecated: only a fallback display name for a bare `from` address.
    if (from && from.name === null) from.name = req.name ?? (req.from ? null : (template?.fromName ?? null));
    const missing = [
      ...(subject === undefined ? ["subject"] : []),
      ...(body === undefined ? ["body"] : []),
      ...(from === null ? ["from"] : []),
    ];
    if (missing.length) {
      throw AppError.validation("Request validation failed", missing.map((path) => ({ path, message: "required (neither the request nor the template gives it)" })));
    }

    const headers = req.headers ?? {};
    const reserved = Object.keys(headers).filter((h) => RESERVED_HEADERS.has(h.toLowerCase()));
    if (reserved.length) {
      throw AppError.validation("Request validation failed", reserved.map((h) => ({ path: `headers.${h}`, message: "this header is set by Mailroom" })));
    }

    const files: StoredAttachment[] = (req.attachments ?? []).map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      contentId: a.contentId ?? null,
      disposition: a.disposition,
      content: Buffer.from(a.content, "base64"),
    }));
    const attachmentBytes = files.reduce((n, f) => n + f.content.byteLength, 0);
    if (attachmentBytes > this.d.maxAttachmentBytes) {
      throw new AppError("PAYLOAD_TOO_LARGE", `Attachments total ${attachmentBytes} bytes; the limit is ${this.d.maxAttachmentBytes}`);
    }
    const headerBytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    const estimate =
      Buffer.byteLength(body!) * 1.05 + Buffer.byteLength(req.text ?? "") * 1.05 + Buffer.byteLength(subject!) + headerBytes + MIME_OVERHEAD +
      files.reduce((n, f) => n + encodedSize(f.content.byteLength), 0);
    if (estimate > MAX_MESSAGE_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", `The message would exceed ${MAX_MESSAGE_BYTES} bytes`);

    const parsed = parseTemplate({ subject: subject!, body: body!, ...(req.text !== undefined ? { text: req.text } : {}) });
    const recipients = (Array.isArray(req.to) ? req.to : [req.to]).map(address);
    // Two reads, asked together: each joins its own query shared by the sends of this turn.
    const [, tracking] = await Promise.all([this.d.domains.assertSender(projectId, from!.email), this.d.renderer.trackingOn(projectId, req.tracking)]);
    return { recipients, from: from!, replyTo: req.reply ?? template?.replyTo ?? null, templateId: template?.id ?? null, parsed, headers, files, tracking };
  }

  /**
   * Each recipient gets its own contact upsert (one-shot data comes back as template variables), its
   * own render and its own email record, in the order given. The upserts go to the contacts service in
   * one call and the records and jobs are written in one statement: every recipient's email is queued,
   * or (on a failure) none is. The attachments are stored once every recipient has rendered, so a
   * refused request leaves none behind.
   */
  private async execute(projectId: string, req: SendEmailRequest, plan: SendPlan, idempotencyId?: string): Promise<Sent> {
    const attachmentIds = plan.files.map(() => newId());
    const addresses = plan.recipients.map((to) => to.email);
    // The suppression check runs beside the contacts call rather than after it. An explicit
    // resubscription lifts a bounce suppression now, not when its event comes back, so such a send
    // leaves the check to queueing, after the lift.
    const [{ results }, blocks] = await Promise.all([
      this.d.rpc.call(contactsRpc.upsertMany, {
        projectId,
        emails: addresses,
        entryPoint: "send",
        ...(req.subscribed !== undefined ? { subscribed: req.subscribed } : {}),
        ...(req.data !== undefined ? { data: req.data } : {}),
      }),
      req.subscribed === true ? null : this.d.suppressions.blocking(projectId, addresses, false),
    ]);
    // A send never lifts a complaint: transactional mail goes regardless, and marketing mail stays
    // stopped until the recipient takes the complaint back.
    if (req.subscribed === true) await this.d.suppressions.lift(projectId, results.map((r) => r.contact.email), new Date(), false);
    const keys = idempotencyId ? sendKeys(idempotencyId, plan.recipients.length) : null;
    const emails: NewEmail[] = [];
    for (const [i, to] of plan.recipients.entries()) {
      const { contact, templateData } = results[i]!;
      const id = newId();
      const vars = { ...templateData, contact: { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data } };
      const rendered = await this.d.renderer.render({ parsed: plan.parsed, vars, emailId: id, projectId, tracking: plan.tracking });
      emails.push({
        id,
        projectId,
        contactId: contact.id,
        to: contact.email,
        toName: to.name,
        from: plan.from.email,
        fromName: plan.from.name,
        replyTo: plan.replyTo,
        subject: rendered.subject,
        html: rendered.html,
        text: rendered.text ?? null,
        headers: plan.headers,
        attachmentIds,
        templateId: plan.templateId,
        campaignId: null,
        workflowId: null,
        executionId: null,
        sourceType: "TRANSACTIONAL",
        marketing: false,
        idempotencyKey: keys ? keys[i]! : null,
        messageId: messageIdFor(id, this.d.returnPathDomain),
        links: rendered.links,
        ...(blocks ? screen(blocks, contact.email) : {}),
      });
    }
    await attachmentsRepo.insert(this.d.sql, projectId, attachmentIds, plan.files);
    const queued = await this.d.queue.queue(emails);
    if (keys && queued.size < emails.length) {
      // A twin attempt of this request (a retry that came while this one ran) queued its emails
      // first: its answer is this one's, and nothing of this attempt stays.
      await attachmentsRepo.delete(this.d.sql, projectId, attachmentIds);
      const first = await this.sentBefore(projectId, idempotencyId!, emails.length);
      if (!first) throw new AppError("INTERNAL_ERROR", "The email could not be queued");
      return { result: first, replayed: true };
    }
    return {
      result: {
        emails: emails.map((e, i) => ({ contact: { id: results[i]!.contact.id, email: results[i]!.contact.email }, email: e.id })),
        timestamp: new Date().toISOString(),
      },
      replayed: false,
    };
  }

  /**
   * The answer of an earlier attempt of the same /v1/send (same Idempotency-Key claim, `meta.idempotencyId`)
   * whose emails are queued, or null when there was none. A retry after the gateway gave up waiting
   * gets it instead of sending again.
   */
  private async sentBefore(projectId: string, idempotencyId: string, recipients: number): Promise<SendEmailResult | null> {
    const keys = sendKeys(idempotencyId, recipients);
    const found = await emailsRepo.byIdempotencyKeys(this.d.sql, projectId, keys);
    if (found.size < keys.length) return null;
    const rows = keys.map((k) => found.get(k)!);
    const first = Math.min(...rows.map((r) => r.createdAt.getTime()));
    return {
      emails: rows.map((r) => ({ contact: { id: r.contactId ?? "", email: r.to }, email: r.id })),
      timestamp: new Date(first).toISOString(),
    };
  }
}

/**
 * The emails' idempotency keys of one attempt of an idempotent /v1/send, one per recipient position.
 * The unique (project, idempotency key) of the emails table is what dedupes: durably, in the same
 * statement that queues them. Campaign and workflow keys never start with `send:`.
 */
function sendKeys(idempotencyId: string, recipients: number): string[] {
  return Array.from({ length: recipients }, (_, i) => `send:${idempotencyId}:${i}`);
}

/** The verdict of a suppression check made before queueing, as `NewEmail` carries it. */
function screen(blocks: Map<string, Suppression>, to: string): Pick<NewEmail, "screened" | "failure"> {
  const block = blocks.get(to.toLowerCase());
  return block ? { screened: true, failure: suppressedBecause(block) } : { screened: true };
}
