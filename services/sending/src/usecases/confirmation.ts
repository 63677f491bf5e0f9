import { type ConfirmationEmailRpcReply, type ConfirmationEmailRpcRequest } from "@mailroom/contracts";
import { newId, type Sql } from "@mailroom/kit";
import { templatesRepo } from "../db/templates-repo.js";
import type { LinkSigner } from "../domain/links.js";
import { parseTemplate, renderTemplate } from "../domain/render.js";
import type { ProjectSettings, VerifiedDomains } from "./lookups.js";
import type { OwnEmails } from "./system-email.js";

/** Mailroom's confirmation email when the project names no template of its own. */
const DEFAULT = {
  subject: "Please confirm your subscription",
  body:
    '<p>Hello,</p><p>Someone, hopefully you, asked to receive emails at {{ email }}. Please confirm:</p>' +
    '<p><a href="{{ confirmUrl }}">Yes, subscribe me</a></p><p>If it was not you, ignore this email: nothing will be sent.</p>',
};

/**
 * sending.confirmationEmail (double opt-in): one transactional email to the contact with its signed
 * `/c/{token}` link, the token naming this email (and through it the contact and project). Rendered
 * with the project's template when the setting names one (`confirmUrl` and `email` are its
 * variables), sent from the template's sender when that domain is verified in the project, else
 * from SYSTEM_FROM. Never tracked: the only link is the confirmation. Idempotent by key.
 */
export class Confirmations {
  constructor(
    private readonly sql: Sql,
    private readonly own: OwnEmails,
    private readonly settings: ProjectSettings,
    private readonly domains: VerifiedDomains,
    private readonly links: LinkSigner,
  ) {}

  async send(req: ConfirmationEmailRpcRequest): Promise<ConfirmationEmailRpcReply> {
    const existing = await this.own.byKey(req.projectId, req.idempotencyKey);
    if (existing) return { emailId: existing };
    const { doubleOptIn } = await this.settings.get(req.projectId);
    const template = doubleOptIn.templateId ? await templatesRepo.get(this.sql, req.projectId, doubleOptIn.templateId) : null;
    const id = newId();
    const rendered = await renderTemplate(parseTemplate(template ?? DEFAULT), { email: req.to, confirmUrl: this.links.url("k", id, req.projectId) });
    const ownSender = template?.from && (await this.domains.isVerified(req.projectId, template.from.split("@")[1]!));
    return this.own.queue({
      id,
      projectId: req.projectId,
      contactId: req.contactId,
      to: req.to,
      from: ownSender ? template!.from! : this.own.systemFrom,
      fromName: ownSender ? (template?.fromName ?? null) : "Mailroom",
      replyTo: template?.replyTo ?? null,
      subject: rendered.subject,
      html: rendered.html,
      templateId: template?.id ?? null,
      idempotencyKey: req.idempotencyKey,
    });
  }
}
