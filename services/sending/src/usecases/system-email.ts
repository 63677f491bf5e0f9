import { AppError, type SystemEmailRpcReply, type SystemEmailRpcRequest } from "@mailroom/contracts";
import { newId, type Sql } from "@mailroom/kit";
import { emailsRepo } from "../db/emails-repo.js";
import { messageIdFor } from "../domain/compose.js";
import type { EmailQueue } from "./queue-email.js";

/** One email of Mailroom's own, as OwnEmails.queue takes it. */
export interface OwnEmail {
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
}

/**
 * Mailroom's own mail to a person (an invitation, a double opt-in confirmation): transactional,
 * untracked, without attachments, idempotent by key.
 */
export class OwnEmails {
  constructor(
    private readonly sql: Sql,
    private readonly queued: EmailQueue,
    /** SYSTEM_FROM: the sender of Mailroom's own mail, sent unsigned when no project verified its domain. */
    readonly systemFrom: string,
    private readonly returnPathDomain: string,
  ) {}

  /**
   * sending.systemEmail: an invitation (decisions.md §13), from SYSTEM_FROM. The project's sender
   * domains do not apply (the address is the installation's, not the project's), nor tracking;
   * suppressions do. Stored as the project's transactional email.
   */
  async system(req: SystemEmailRpcRequest): Promise<SystemEmailRpcReply> {
    const existing = await this.byKey(req.projectId, req.idempotencyKey);
    if (existing) return { emailId: existing };
    return this.queue({
      id: newId(),
      projectId: req.projectId,
      contactId: null,
      to: req.to,
      from: this.systemFrom,
      fromName: "Mailroom",
      replyTo: null,
      subject: req.subject,
      html: req.html,
      templateId: null,
      idempotencyKey: req.idempotencyKey,
    });
  }

  byKey(projectId: string, key: string): Promise<string | undefined> {
    return emailsRepo.idsByIdempotencyKeys(this.sql, projectId, [key]).then((ids) => ids.get(key));
  }

  /** Answers the email the key names, this one or the one a concurrent call with the same key queued first. */
  async queue(m: OwnEmail): Promise<{ emailId: string }> {
    const queued = await this.queued.queue([
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
        messageId: messageIdFor(m.id, this.returnPathDomain),
      },
    ]);
    if (queued.has(m.id)) return { emailId: m.id };
    const first = await this.byKey(m.projectId, m.idempotencyKey);
    if (!first) throw new AppError("INTERNAL_ERROR", "The email could not be queued");
    return { emailId: first };
  }
}
