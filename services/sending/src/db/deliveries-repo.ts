import type { EmailSourceType, EmailStatus } from "@mailroom/contracts";
import { columns, outboxGroupInsert, traced, type Q, type Row, type RowOf } from "@mailroom/kit";
import type { OutgoingEmail, SigningKey } from "../domain/compose.js";
import type { emails } from "./schema.js";

/** A record as the delivery worker sees it. */
export interface DeliveryRecord extends OutgoingEmail {
  projectId: string;
  contactId: string | null;
  status: EmailStatus;
  attachmentIds: string[];
  templateId: string | null;
  campaignId: string | null;
  workflowId: string | null;
  sourceType: EmailSourceType;
  /** Claims so far, this one included: the nth 4xx answer is met at attempt n (domain/deferrals.ts). */
  attempts: number;
  /** When it was queued: its DELIVERY_MAX_AGE runs from here. */
  queuedAt: Date;
}

export type Claim =
  /** `key`: the DKIM key of the sender's domain, null when that domain is no longer verified. */
  /** `warmup`: the sender domain is warming up (delivery/warmup.ts). */
  | { kind: "claimed"; email: DeliveryRecord; key: SigningKey | null; warmup: boolean }
  | { kind: "missing" }
  | { kind: "done"; status: EmailStatus }
  | { kind: "leased" }
  /** The relay deferred it (4xx) and its retry is not due yet: due in `inMs`. */
  | { kind: "deferred"; inMs: number };

/** A SENT record to write: `token` is the lease its worker claimed the email under. */
export interface Sent {
  id: string;
  token: string;
  at: Date;
  delivered: boolean;
  providerMessageId: string | null;
}

type EmailRow = Row<typeof emails>;

const DELIVERY = columns<EmailRow>()([
  "id", "project_id", "contact_id", "to_email", "to_name", "from_email", "from_name", "reply_to", "subject", "html", "text", "headers",
  "marketing", "message_id", "status", "attachment_ids", "template_id", "campaign_id", "workflow_id", "source_type",
  "attempts", "created_at",
]);
type DeliveryRow = RowOf<typeof DELIVERY>;

const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  projectId: r.project_id,
  contactId: r.contact_id,
  to: r.to_email,
  toName: r.to_name,
  from: r.from_email,
  fromName: r.from_name,
  replyTo: r.reply_to,
  subject: r.subject,
  html: r.html,
  text: r.text,
  headers: r.headers,
  marketing: r.marketing,
  messageId: r.message_id,
  status: r.status,
  attachmentIds: r.attachment_ids,
  templateId: r.template_id,
  campaignId: r.campaign_id,
  workflowId: r.workflow_id,
  sourceType: r.source_type,
  attempts: r.attempts,
  queuedAt: r.created_at,
});

/**
 * The delivery lease of QUEUED records and the statements of the worker that holds it (delivery/).
 * The lease is `locked_until` and `lease_token`: a replica's workers claim under their `LeaseSet`'s
 * token and every statement after the claim checks it, so a worker whose lease another took over
 * (it stalled past the expiry) commits nothing. It is also the renewal store of that LeaseSet.
 */
export const deliveriesRepo = traced("DeliveriesRepo", {
  /**
   * Takes the delivery lease of each QUEUED record whose lease is free or expired (its worker died or
   * stalled), in one statement: one Claim per id, in order. The lease, not the JetStream message, is
   * what keeps two workers from sending the same email.
   */
  async claimMany(q: Q, ids: string[], token: string, leaseMs: number): Promise<Claim[]> {
    // The signing key comes in the same statement: a delivery needs both, and a second query per
    // batch cost as much again. The key is read as the claim commits, so a domain unverified before
    // it has no key here and the email fails unsent.
    const claimed = await q<(DeliveryRow & { key_domain: string | null; key_selector: string | null; key_pem: string | null; key_warmup: boolean | null })[]>`
      with claimed as (
        update emails set locked_until = now() + ${leaseMs} * interval '1 millisecond', lease_token = ${token}, attempts = attempts + 1, held_for = null
        where id = any(${ids}::uuid[]) and status = 'QUEUED' and (locked_until is null or locked_until < now())
        returning ${q.unsafe(DELIVERY.sql)})
      select c.*, d.domain as key_domain, d.selector as key_selector, d.private_key as key_pem, d.warmup as key_warmup
      from claimed c left join domains d
        -- the sender's domain as domainOf() reads it: after the last @, lower-cased
        on d.project_id = c.project_id and d.status = 'VERIFIED' and d.domain = lower(substring(c.from_email from '[^@]*$'))`;
    const byId = new Map(claimed.map(({ key_domain, key_selector, key_pem, key_warmup, ...email }) => [
      email.id,
      { email: toDelivery(email), key: key_pem ? { domain: key_domain!, selector: key_selector!, privateKey: key_pem } : null, warmup: key_warmup === true },
    ]));
    const rest = ids.filter((id) => !byId.has(id));
    const states = rest.length
      ? await q<Array<Pick<EmailRow, "id" | "status"> & { deferred_ms: number | null }>>`
          select id, status,
            case when lease_token is null and locked_until > now() then ceil(extract(epoch from locked_until - now()) * 1000)::int end as deferred_ms
          from emails where id = any(${rest}::uuid[])`
      : [];
    const stateOf = new Map(states.map((r) => [r.id, r]));
    return ids.map((id): Claim => {
      const got = byId.get(id);
      if (got) return { kind: "claimed", ...got };
      const state = stateOf.get(id);
      if (!state) return { kind: "missing" };
      if (state.status !== "QUEUED") return { kind: "done", status: state.status };
      return state.deferred_ms === null ? { kind: "leased" } : { kind: "deferred", inMs: state.deferred_ms };
    });
  },

  /** The LeaseSet's heartbeat: extends the leases `token` still holds, in one statement, and answers their ids. */
  async renew(q: Q, ids: string[], token: string, leaseMs: number): Promise<string[]> {
    const rows = await q<Pick<EmailRow, "id">[]>`
      update emails set locked_until = now() + ${leaseMs} * interval '1 millisecond'
      where id = any(${ids}::uuid[]) and lease_token = ${token} and status = 'QUEUED' returning id`;
    return rows.map((r) => r.id);
  },

  /**
   * Gives the lease back while `token` holds it (a temporary failure, so the retry takes it at once),
   * clearing the token so that a renewal in flight extends nothing.
   */
  async release(q: Q, id: string, token: string, error?: string): Promise<void> {
    await q`
      update emails set locked_until = null, lease_token = null, last_error = coalesce(${error?.slice(0, 1000) ?? null}, last_error)
      where id = ${id} and lease_token = ${token} and status = 'QUEUED'`;
  },

  /**
   * The relay deferred the email (4xx): no claim takes it for `retryInMs`. The time sits where a lease's
   * would, with no token, so the claim's own condition holds it back and no heartbeat extends it.
   */
  async defer(q: Q, id: string, token: string, error: string, retryInMs: number): Promise<void> {
    await q`
      update emails set locked_until = now() + ${retryInMs} * interval '1 millisecond', lease_token = null, last_error = ${error.slice(0, 1000)}
      where id = ${id} and lease_token = ${token} and status = 'QUEUED'`;
  },

  /**
   * Holds the email back for `waitMs` for a limit of ours (a warm-up cap), not for an answer of the
   * relay: like `defer`, but the claim's attempt is given back, so the wait is no step of the 4xx
   * schedule, and `provider` is kept so that the campaign can show what is throttled where.
   */
  async hold(q: Q, id: string, token: string, waitMs: number, provider: string): Promise<void> {
    await q`
      update emails set locked_until = now() + ${waitMs} * interval '1 millisecond', lease_token = null, attempts = greatest(0, attempts - 1),
        held_for = ${provider}
      where id = ${id} and lease_token = ${token} and status = 'QUEUED'`;
  },

  /**
   * A campaign's emails held by a limit right now, per provider (GET /campaigns/{id} stats.throttled).
   * Read through the partial index of held emails alone, the project checked on what it finds: with
   * the project in the scan, a sending campaign's stale statistics led the planner to the
   * (project, campaign) index and read every email of the campaign at each read of its page (25 ms
   * at 10,000 emails; 0.15 ms of PostgreSQL per email of a campaign whose page was read 3 times a second).
   */
  async heldByProvider(q: Q, projectId: string, campaignId: string): Promise<Record<string, number>> {
    const rows = await q<{ held_for: string; n: number }[]>`
      with held as materialized (
        select held_for, project_id, status from emails where campaign_id = ${campaignId} and held_for is not null)
      select held_for, count(*)::int as n from held
      where project_id = ${projectId} and status = 'QUEUED'
      group by held_for`;
    return Object.fromEntries(rows.map((r) => [r.held_for, r.n]));
  },

  /**
   * QUEUED → SENT (DELIVERED when the relay's 250 counts as delivery) while each email's `token`
   * holds its lease, in one statement with their event batches (`eventBatches(…).json`: an email's
   * events go out if and only if it moved) and their hourly /stats counters, which count each email
   * once since only a QUEUED record moves. Returns the ids that moved: a worker whose lease was
   * taken over moves nothing, and its successor records the email.
   */
  async markSentMany(q: Q, sent: Sent[], events: string): Promise<Set<string>> {
    // One JSON parameter whatever the batch size, so the statement is prepared once, not parsed per
    // batch. The id list is there for the planner: it cannot count a recordset's rows, and guessing
    // 100 it scanned the whole table.
    const rows = JSON.stringify(
      sent.map((e) => ({ id: e.id, token: e.token, status: e.delivered ? "DELIVERED" : "SENT", sent_at: e.at, delivered_at: e.delivered ? e.at : null, pmid: e.providerMessageId })),
    );
    const moved = await q<Pick<EmailRow, "id">[]>`
      with moved as (
        update emails set status = v.status, sent_at = v.sent_at, delivered_at = v.delivered_at, locked_until = null,
          last_error = null, provider_message_id = v.pmid
        from json_to_recordset(${rows}::json) as v(id uuid, token uuid, status text, sent_at timestamptz, delivered_at timestamptz, pmid text)
        where emails.id = any(${sent.map((e) => e.id)}::uuid[]) and emails.id = v.id and emails.status = 'QUEUED'
          and emails.lease_token = v.token
        returning emails.id, emails.project_id, emails.campaign_id, emails.sent_at, emails.delivered_at),
      o as (${outboxGroupInsert(q, events, q`select id from moved`)}),
      counted as (
        insert into email_stats_hourly as s (project_id, campaign_id, hour, sent, delivered)
        select project_id, campaign_id, date_trunc('hour', sent_at, 'UTC'), count(*), count(delivered_at) from moved group by 1, 2, 3
        on conflict (project_id, hour, campaign_id) do update set sent = s.sent + excluded.sent, delivered = s.delivered + excluded.delivered)
      select id from moved`;
    return new Set(moved.map((r) => r.id));
  },

  /**
   * QUEUED → FAILED (inside the caller's transaction); the record when it moved, null when it had
   * not. `token`: the worker's, which must still hold the lease. null: giving up on a job, done only
   * when no lease is live, since a live worker holding one may still be sending and its answer decides.
   */
  async markFailed(q: Q, id: string, error: string, token: string | null): Promise<DeliveryRecord | null> {
    const [row] = await q<DeliveryRow[]>`
      update emails set status = 'FAILED', locked_until = null, last_error = ${error.slice(0, 1000)}
      where id = ${id} and status = 'QUEUED'
        and ${token === null ? q`(locked_until is null or locked_until < now())` : q`lease_token = ${token}`}
      returning ${q.unsafe(DELIVERY.sql)}`;
    return row ? toDelivery(row) : null;
  },
});
