import type { Email, EmailSourceType, ListEmailsQuery } from "@mailroom/contracts";
import { idOfTime, iso, isoOrNull, outboxGroupInsert, outboxInsert, traced, type Q, type Row } from "@mailroom/kit";
import type { OutgoingEmail } from "../domain/compose.js";
import type { emails as emailsTable } from "./schema.js";

type EmailRow = Row<typeof emailsTable>;

/** Everything needed to queue one email (rendered already). */
export interface NewEmail extends OutgoingEmail {
  projectId: string;
  contactId: string | null;
  attachmentIds: string[];
  templateId: string | null;
  campaignId: string | null;
  /** A topic campaign's email (omitted: none). */
  topicId?: string | null;
  workflowId: string | null;
  executionId: string | null;
  sourceType: EmailSourceType;
  idempotencyKey: string | null;
  /** Targets of the tracked links (click tokens name them by index). */
  links: string[];
  /** Set when the email must not be sent (suppressed address): the record is stored FAILED, no job. */
  failure?: string;
  /** The suppression check ran already (`failure` says its verdict): queueing does not repeat it. */
  screened?: boolean;
}

const toEmail = (r: EmailRow): Email => ({
  id: r.id,
  contactId: r.contact_id,
  to: r.to_email,
  from: r.from_email,
  subject: r.subject,
  templateId: r.template_id,
  campaignId: r.campaign_id,
  workflowId: r.workflow_id,
  sourceType: r.source_type,
  status: r.status,
  messageId: r.message_id,
  sentAt: isoOrNull(r.sent_at),
  deliveredAt: isoOrNull(r.delivered_at),
  openedAt: isoOrNull(r.opened_at),
  clickedAt: isoOrNull(r.clicked_at),
  bouncedAt: isoOrNull(r.bounced_at),
  complainedAt: isoOrNull(r.complained_at),
  opens: r.opens,
  clicks: r.clicks,
  createdAt: iso(r.created_at),
});

/** A literal for LIKE: its wildcards and the escape character itself match only themselves. */
const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const emailsRepo = traced("EmailsRepo", {
  /**
   * Inserts QUEUED records (FAILED when `failure` is set) with, in the same statement and with no
   * transaction around it, their outbox rows (`outboxRows(messages, owners)`, each owned by its
   * email) and their delivery jobs (`groupMessages(…).json`, several emails a job). Returns the ids
   * inserted: a record whose idempotency key exists already, or repeats one earlier in `emails`, is
   * not written, and neither are its rows nor its place in a job.
   */
  async insertQueuedMany(q: Q, emails: NewEmail[], outbox: string, jobs = "[]"): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    // One JSON parameter (not 23 per email): the statement's text is the same for any number of
    // emails, so each connection prepares it once and runs it in one round trip.
    const given = JSON.stringify(
      emails.map((e) => ({
        id: e.id, project_id: e.projectId, contact_id: e.contactId, to_email: e.to, to_name: e.toName, from_email: e.from,
        from_name: e.fromName, reply_to: e.replyTo, subject: e.subject, html: e.html, text: e.text ?? null, headers: e.headers,
        attachment_ids: e.attachmentIds, template_id: e.templateId, campaign_id: e.campaignId, topic_id: e.topicId ?? null, workflow_id: e.workflowId,
        execution_id: e.executionId, source_type: e.sourceType, marketing: e.marketing, idempotency_key: e.idempotencyKey,
        status: e.failure ? "FAILED" : "QUEUED", message_id: e.messageId, links: e.links, last_error: e.failure ?? null,
      })),
    );
    const inserted = await q<Pick<EmailRow, "id">[]>`
      with e as (
        insert into emails (id, project_id, contact_id, to_email, to_name, from_email, from_name, reply_to, subject, html, text,
          headers, attachment_ids, template_id, campaign_id, topic_id, workflow_id, execution_id, source_type, marketing,
          idempotency_key, status, message_id, links, last_error)
        select id, project_id, contact_id, to_email, to_name, from_email, from_name, reply_to, subject, html, text,
          headers, attachment_ids, template_id, campaign_id, topic_id, workflow_id, execution_id, source_type, marketing,
          idempotency_key, status, message_id, links, last_error
        from rows from (json_to_recordset(${given}::json) as (id uuid, project_id uuid, contact_id uuid, to_email text,
          to_name text, from_email text, from_name text, reply_to text, subject text, html text, text text, headers jsonb,
          attachment_ids uuid[], template_id uuid, campaign_id uuid, topic_id uuid, workflow_id uuid, execution_id uuid, source_type text,
          marketing boolean, idempotency_key text, status text, message_id text, links text[], last_error text)) with ordinality as v
        -- in the order given: of two records with one idempotency key, the first is written
        order by v.ordinality
        on conflict (project_id, idempotency_key) do nothing
        returning id),
      o as (${outboxInsert(q, outbox)} where m.owner in (select id from e)),
      j as (${outboxGroupInsert(q, jobs, q`select id from e`)})
      select id from e`;
    return new Set(inserted.map((r) => r.id));
  },

  /**
   * Per contact of `contactIds`, the marketing emails made for it since `since` that were not
   * skipped or failed: what the frequency cap counts. Ids are time-ordered, so the time bound is a
   * range of the (project, contact, id) index.
   */
  async marketingCounts(q: Q, projectId: string, contactIds: string[], since: Date): Promise<Map<string, number>> {
    if (contactIds.length === 0) return new Map();
    const rows = await q<{ contact_id: string; n: number }[]>`
      select contact_id, count(*)::int as n from emails
      where project_id = ${projectId} and contact_id = any(${contactIds}::uuid[]) and id >= ${idOfTime(since.getTime())}::uuid
        and marketing and status <> 'FAILED'
      group by contact_id`;
    return new Map(rows.map((r) => [r.contact_id, r.n]));
  },

  /** idempotency key → email id, for the keys of `keys` that have a record. */
  async idsByIdempotencyKeys(q: Q, projectId: string, keys: string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await q<Pick<EmailRow, "id" | "idempotency_key">[]>`
      select id, idempotency_key from emails where project_id = ${projectId} and idempotency_key = any(${keys}::text[])`;
    return new Map(rows.map((r) => [r.idempotency_key!, r.id]));
  },

  /** idempotency key → what an answer names of its email, for the keys of `keys` that have a record. */
  async byIdempotencyKeys(q: Q, projectId: string, keys: string[]): Promise<Map<string, { id: string; contactId: string | null; to: string; createdAt: Date }>> {
    const rows = await q<Pick<EmailRow, "idempotency_key" | "id" | "contact_id" | "to_email" | "created_at">[]>`
      select idempotency_key, id, contact_id, to_email, created_at
      from emails where project_id = ${projectId} and idempotency_key = any(${keys}::text[])`;
    return new Map(rows.map((r) => [r.idempotency_key!, { id: r.id, contactId: r.contact_id, to: r.to_email, createdAt: r.created_at }]));
  },

  /** The recipient side of an email, for its subscription pages; `projectId` (when known) must own it. */
  async recipient(
    q: Q,
    id: string,
    projectId: string | null,
  ): Promise<{ id: string; projectId: string; contactId: string | null; campaignId: string | null; topicId: string | null; to: string; createdAt: Date } | null> {
    const [row] = await q<Pick<EmailRow, "id" | "project_id" | "contact_id" | "campaign_id" | "topic_id" | "to_email" | "created_at">[]>`
      select id, project_id, contact_id, campaign_id, topic_id, to_email, created_at from emails
      where id = ${id} and (${projectId}::uuid is null or project_id = ${projectId}::uuid)`;
    return row
      ? { id: row.id, projectId: row.project_id, contactId: row.contact_id, campaignId: row.campaign_id, topicId: row.topic_id, to: row.to_email, createdAt: row.created_at }
      : null;
  },

  async get(q: Q, projectId: string, id: string): Promise<Email | null> {
    const [row] = await q<EmailRow[]>`select * from emails where project_id = ${projectId} and id = ${id}`;
    return row ? toEmail(row) : null;
  },

  /**
   * Newest first, keyset on the time-ordered id. `to` is a substring of the address, any case: its
   * `%`, `_` and `\` match themselves (escaped), and the trigram index serves the ILIKE.
   */
  async list(q: Q, projectId: string, o: ListEmailsQuery): Promise<{ data: Email[]; cursor: string | null; hasMore: boolean }> {
    const rows = await q<EmailRow[]>`
      select * from emails where project_id = ${projectId}
        ${o.contactId ? q`and contact_id = ${o.contactId}` : q``}
        ${o.campaignId ? q`and campaign_id = ${o.campaignId}` : q``}
        ${o.status ? q`and status = ${o.status}` : q``}
        ${o.to ? q`and to_email ilike ${`%${likeEscape(o.to)}%`}` : q``}
        ${o.cursor ? q`and id < ${o.cursor}` : q``}
      order by id desc limit ${o.limit + 1}`;
    const hasMore = rows.length > o.limit;
    const data = rows.slice(0, o.limit).map(toEmail);
    return { data, cursor: hasMore ? data[data.length - 1]!.id : null, hasMore };
  },
});
