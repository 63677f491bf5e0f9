import { EMAIL_STATUSES, type EmailStatus } from "@mailroom/contracts";
import { columns, isoOrNull, json, type RowOf, traced, type Q, type Row } from "@mailroom/kit";
import type { EventSource } from "../domain/events.js";
import type { emails } from "./schema.js";

type EmailRow = Row<typeof emails>;

/** What happened to a sent email, as the email record records it. */
export type Engagement =
  | { kind: "delivered"; at: Date }
  /** `diagnostic`: the remote MTA's text (DSN Diagnostic-Code or Status, SES diagnosticCode), when it gave one. */
  | { kind: "bounced"; permanent: boolean; at: Date; diagnostic?: string | null }
  | { kind: "complained"; at: Date }
  | { kind: "opened"; at: Date; count?: number }
  | { kind: "clicked"; at: Date; linkIndex?: number; count?: number };

export interface Applied {
  email: EventSource & { status: EmailStatus; to: string };
  /** The first of its kind for this email: its event is emitted (later ones are only counted). */
  first: boolean;
  opens: number;
  clicks: number;
  openedAt: string | null;
  clickedAt: string | null;
  /** The clicked link's target (clicks by link index). */
  link: string | null;
}

export type ApplyResult = Applied | { missing: true } | { queued: true };

const ORDER = `array[${EMAIL_STATUSES.map((s) => `'${s}'`).join(",")}]::text[]`;
/**
 * Statuses only move forward (decisions.md §5), in the contract's order. A QUEUED record belongs to
 * its delivery worker, which records SENT; feedback never moves it.
 */
const forwardTo = (target: string) =>
  `case when e.status <> 'QUEUED' and array_position(${ORDER}, ${target}) > array_position(${ORDER}, e.status) then ${target} else e.status end`;
const forward = (target: EmailStatus) => forwardTo(`'${target}'`);

/** Opens and clicks of one email gathered by the write-behind recorder. */
export interface CountedEngagement {
  emailId: string;
  projectId: string;
  opens: number;
  clicks: number;
  firstOpenAt: Date | null;
  firstClickAt: Date | null;
  firstLinkIndex: number;
}

export interface CountedResult {
  email: EventSource;
  firstOpen: boolean;
  firstClick: boolean;
  openedAt: string | null;
  clickedAt: string | null;
  link: string | null;
}

const SOURCE = columns<EmailRow>()(
  ["id", "project_id", "contact_id", "to_email", "subject", "from_email", "from_name", "message_id", "template_id", "campaign_id", "workflow_id", "source_type", "status"],
  "e",
);
type SourceRow = RowOf<typeof SOURCE>;
const toSource = (r: SourceRow): Applied["email"] => ({
  id: r.id,
  projectId: r.project_id,
  contactId: r.contact_id,
  to: r.to_email,
  subject: r.subject,
  from: r.from_email,
  fromName: r.from_name,
  messageId: r.message_id,
  templateId: r.template_id,
  campaignId: r.campaign_id,
  workflowId: r.workflow_id,
  sourceType: r.source_type,
  status: r.status,
});

/** Per kind: the columns it sets and what "first" means, read from the row before the update. */
function plan(e: Engagement): { set: string; first: string } {
  switch (e.kind) {
    case "delivered":
      return { set: `delivered_at = coalesce(e.delivered_at, $2::timestamptz), status = ${forward("DELIVERED")}`, first: "old.delivered_at is null" };
    case "bounced":
      return e.permanent
        ? { set: `bounced_at = coalesce(e.bounced_at, $2::timestamptz), status = ${forward("BOUNCED")}`, first: "old.bounced_at is null" }
        : // a soft bounce is for visibility only: the message may still arrive
          { set: "status = e.status", first: "true" };
    case "complained":
      return { set: `complained_at = coalesce(e.complained_at, $2::timestamptz), status = ${forward("COMPLAINED")}`, first: "old.complained_at is null" };
    case "opened":
      return { set: `opens = e.opens + old.n, opened_at = coalesce(e.opened_at, $2::timestamptz), status = ${forward("OPENED")}`, first: "old.opens = 0" };
    case "clicked":
      return { set: `clicks = e.clicks + old.n, clicked_at = coalesce(e.clicked_at, $2::timestamptz), status = ${forward("CLICKED")}`, first: "old.clicks = 0" };
  }
}

export const feedbackRepo = traced("FeedbackRepo", {
  /**
   * Records one engagement on the email inside the caller's transaction, in one statement. `projectId`
   * (when known: link tokens carry it) must own the email. Delivery feedback about a record still
   * QUEUED is refused (`queued`): its relay transaction has not been recorded yet, so the caller
   * answers "try again later".
   */
  async apply(q: Q, emailId: string, projectId: string | null, e: Engagement): Promise<ApplyResult> {
    const { set, first } = plan(e);
    const link = e.kind === "clicked" && e.linkIndex !== undefined ? e.linkIndex + 1 : null;
    const dsnKind = e.kind === "delivered" || e.kind === "bounced" || e.kind === "complained";
    const rows = await q.unsafe<Array<SourceRow & Pick<EmailRow, "opens" | "clicks" | "opened_at" | "clicked_at"> & { first: boolean; link: string | null }>>(
      `with old as (
         -- $2 and $5 are typed here: not every kind's update uses them
         select id, status, delivered_at, bounced_at, complained_at, opens, clicks, $2::timestamptz as at, $5::int as n from emails
         where id = $1 and ($3::uuid is null or project_id = $3::uuid)
           and ($4::int is null or cardinality(links) >= $4::int)
           ${dsnKind ? "and status <> 'QUEUED'" : ""}
         for update)
       update emails e set ${set} from old where e.id = old.id
       returning ${SOURCE.sql}, ${first} as first, e.opens, e.clicks, e.opened_at, e.clicked_at,
         case when $4::int is null then null else e.links[$4::int] end as link`,
      [emailId, e.at.toISOString(), projectId, link, (e.kind === "opened" || e.kind === "clicked" ? e.count : undefined) ?? 1],
    );
    const row = rows[0];
    if (!row) {
      if (!dsnKind) return { missing: true };
      const [cur] = await q<Pick<EmailRow, "status">[]>`
        select status from emails where id = ${emailId} and (${projectId}::uuid is null or project_id = ${projectId}::uuid)`;
      return cur?.status === "QUEUED" ? { queued: true } : { missing: true };
    }
    return {
      email: toSource(row),
      first: row.first,
      opens: row.opens,
      clicks: row.clicks,
      openedAt: isoOrNull(row.opened_at),
      clickedAt: isoOrNull(row.clicked_at),
      link: row.link,
    };
  },

  /**
   * Adds many emails' opens and clicks in one statement (rows locked in id order, so two replicas
   * flushing at once cannot deadlock). Says which were the first of their email.
   */
  async applyCounts(q: Q, batch: CountedEngagement[]): Promise<CountedResult[]> {
    if (!batch.length) return [];
    const rows = batch.map((c) => ({
      id: c.emailId,
      project_id: c.projectId,
      opens: c.opens,
      clicks: c.clicks,
      open_at: c.firstOpenAt?.toISOString() ?? null,
      click_at: c.firstClickAt?.toISOString() ?? null,
      link_idx: c.firstLinkIndex,
    }));
    const updated = await q<Array<SourceRow & Pick<EmailRow, "opened_at" | "clicked_at"> & { first_open: boolean; first_click: boolean; link: string | null }>>`
      with v as (
        select * from jsonb_to_recordset(${json(rows)}::jsonb)
          as v(id uuid, project_id uuid, opens int, clicks int, open_at timestamptz, click_at timestamptz, link_idx int)),
      old as (
        select e.id, e.opens, e.clicks from emails e join v on v.id = e.id and v.project_id = e.project_id
        order by e.id for update of e)
      update emails e set
        opens = e.opens + v.opens, clicks = e.clicks + v.clicks,
        opened_at = case when v.opens > 0 then coalesce(e.opened_at, v.open_at) else e.opened_at end,
        clicked_at = case when v.clicks > 0 then coalesce(e.clicked_at, v.click_at) else e.clicked_at end,
        status = ${q.unsafe(forwardTo("(case when v.clicks > 0 then 'CLICKED' else 'OPENED' end)"))}
      from v, old where e.id = v.id and old.id = v.id
      returning ${q.unsafe(SOURCE.sql)}, old.opens = 0 and v.opens > 0 as first_open, old.clicks = 0 and v.clicks > 0 as first_click,
        e.opened_at, e.clicked_at, e.links[v.link_idx + 1] as link`;
    return updated.map((r) => {
      const { status: _status, ...email } = toSource(r);
      return { email, firstOpen: r.first_open, firstClick: r.first_click, openedAt: isoOrNull(r.opened_at), clickedAt: isoOrNull(r.clicked_at), link: r.link };
    });
  },

  /** Marks a feedback message as applied; false when it already was (a report delivered twice). */
  async receipt(q: Q, key: string): Promise<boolean> {
    const rows = await q`insert into feedback_receipts (key) values (${key}) on conflict do nothing returning key`;
    return rows.length === 1;
  },

  async pruneReceipts(q: Q, olderThanDays: number): Promise<void> {
    await q`delete from feedback_receipts where received_at < now() - ${olderThanDays} * interval '1 day'`;
  },

  /** What a link token needs to answer without touching the record: its project and stored links. */
  async linksOf(q: Q, emailId: string, projectId: string): Promise<string[] | null> {
    const [row] = await q<Pick<EmailRow, "links">[]>`select links from emails where id = ${emailId} and project_id = ${projectId}`;
    return row ? row.links : null;
  },

  /** The email a SES notification names: by the id in SES's 250 answer, else by our Message-ID. */
  async idByProviderMessageId(q: Q, providerId: string): Promise<string | null> {
    const [row] = await q<Pick<EmailRow, "id">[]>`select id from emails where provider_message_id = ${providerId} limit 1`;
    return row?.id ?? null;
  },
});
