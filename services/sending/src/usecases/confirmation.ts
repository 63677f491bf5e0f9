import type { ConfirmationEmailRpcReply, ConfirmationEmailRpcRequest } from "@mailroom/contracts";
import { newId, type Logger, type Sql } from "@mailroom/kit";
import { confirmationsRepo } from "../db/confirmations-repo.js";
import { templatesRepo } from "../db/templates-repo.js";
import { confirmationText } from "../domain/confirmation-text.js";
import { domainOf } from "../domain/domains.js";
import type { LinkSigner } from "../domain/links.js";
import { parseTemplate, renderTemplate } from "../domain/render.js";
import type { ProjectNames, ProjectSettings, VerifiedDomains } from "./lookups.js";
import type { OwnEmail, OwnEmails } from "./system-email.js";

/**
 * sending.confirmationEmail (double opt-in): one transactional email to the contact with its signed
 * `/c/{token}` link, the token naming this email (and through it the contact and project). Never
 * tracked: the only link is the confirmation. Idempotent by key.
 *
 * Whoever knows a public key can ask for one for any address, so (decisions.md §15): the address
 * gets at most one a day from a project and three from all of them (further requests send nothing,
 * and the caller answers as usual); and the project's own words go out only from its own verified
 * domain, never from SYSTEM_FROM.
 */
export class Confirmations {
  constructor(
    private readonly sql: Sql,
    private readonly own: OwnEmails,
    private readonly settings: ProjectSettings,
    private readonly domains: VerifiedDomains,
    private readonly links: LinkSigner,
    private readonly projectNames: ProjectNames,
    private readonly log: Logger,
  ) {}

  async send(req: ConfirmationEmailRpcRequest): Promise<ConfirmationEmailRpcReply> {
    const existing = await this.own.byKey(req.projectId, req.idempotencyKey);
    if (existing) return { emailId: existing };
    const id = newId();
    const words = await this.words(req.projectId, req.to, this.links.url("k", id, req.projectId));
    const place = { projectId: req.projectId, address: req.to, key: req.idempotencyKey };
    if (!(await confirmationsRepo.claim(this.sql, place))) {
      this.log.info({ projectId: req.projectId, contactId: req.contactId }, "double opt-in: the address had its confirmation of the day; none sent");
      return { emailId: null };
    }
    try {
      return await this.own.queue({ id, projectId: req.projectId, contactId: req.contactId, to: req.to, idempotencyKey: req.idempotencyKey, ...words });
    } catch (err) {
      // the place goes back unless the email is there after all (a concurrent call with the same key)
      if (!(await this.own.byKey(req.projectId, req.idempotencyKey).catch(() => "unknown"))) {
        await confirmationsRepo.release(this.sql, req.projectId, req.idempotencyKey).catch(() => undefined);
      }
      throw err;
    }
  }

  /**
   * Sender and content of a confirmation. The project's template only when its sender is on a domain
   * verified in the project now (a domain deleted after the setting was saved no longer counts); then
   * its subject, body, sender name and reply-to are the project's, under its own name. Otherwise
   * Mailroom's fixed text from SYSTEM_FROM, naming the project and the address.
   */
  private async words(projectId: string, to: string, confirmUrl: string): Promise<Pick<OwnEmail, "from" | "fromName" | "replyTo" | "subject" | "html" | "templateId">> {
    const { doubleOptIn } = await this.settings.get(projectId);
    const template = doubleOptIn.templateId ? await templatesRepo.get(this.sql, projectId, doubleOptIn.templateId) : null;
    if (template?.from && (await this.domains.isVerified(projectId, domainOf(template.from)))) {
      const rendered = await renderTemplate(parseTemplate(template), { email: to, confirmUrl });
      return { from: template.from, fromName: template.fromName, replyTo: template.replyTo, subject: rendered.subject, html: rendered.html, templateId: template.id };
    }
    const { subject, html } = confirmationText(await this.projectNames.get(projectId), to, confirmUrl);
    return { from: this.own.systemFrom, fromName: "Mailroom", replyTo: null, subject, html, templateId: null };
  }
}
