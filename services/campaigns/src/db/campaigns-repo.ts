import type { Campaign, CampaignStatus, DeliverAt, VariantStats } from "@mailroom/contracts";
import { iso, isoOrNull, json, traced, type Q, type Row } from "@mailroom/kit";
import type { AbSetup } from "../domain/ab-test.js";
import type { Audience } from "../domain/campaign.js";
import type { campaigns } from "./schema.js";

export type CampaignRow = Row<typeof campaigns>;

/** `variants`: the A/B sample's stats per variant (abRepo.variantStats), empty for a plain campaign. */
export function toCampaign(r: CampaignRow, variants: VariantStats[] = []): Campaign {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    subject: r.subject,
    body: r.body,
    from: r.from_email,
    fromName: r.from_name,
    replyTo: r.reply_to,
    type: r.audience_type,
    segmentId: r.segment_id,
    audienceFilter: r.audience_filter,
    topicId: r.topic_id,
    status: r.status,
    scheduledAt: isoOrNull(r.scheduled_at),
    sentAt: isoOrNull(r.sent_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    stats: {
      recipients: r.recipients,
      sent: r.sent,
      delivered: r.delivered,
      opened: r.opened,
      clicked: r.clicked,
      bounced: r.bounced,
      complained: r.complained,
      unsubscribed: r.unsubscribed,
      failed: r.failed,
      skipped: r.skipped,
      waiting: r.waiting,
      variants,
    },
    variants: r.variants,
    abTest: r.ab_test,
    winnerVariant: r.winner_variant,
    winnerDueAt: isoOrNull(r.winner_due_at),
    deliverAt: r.deliver_at,
  };
}

/** The editable content of a campaign, as stored. */
export interface CampaignContent {
  name: string;
  description: string | null;
  subject: string;
  body: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  audience: Audience;
  ab: AbSetup;
  deliverAt: DeliverAt | null;
}

/** The stored audience filter: SQL NULL, not JSON null, when there is none. */
const filterParam = (a: Audience) => (a.filter === null ? null : json(a.filter));
const jsonOrNull = (v: unknown) => (v === null ? null : json(v));

/**
 * Every query is scoped by project, so another project's id is simply not found. Every state change
 * is conditional on the current status and returns the row only when it happened.
 */
export const campaignsRepo = traced("CampaignsRepo", {
  async insert(q: Q, id: string, projectId: string, c: CampaignContent): Promise<CampaignRow> {
    const [row] = await q<CampaignRow[]>`
      insert into campaigns (id, project_id, name, description, subject, body, from_email, from_name, reply_to,
        audience_type, segment_id, audience_filter, topic_id, status, created_at, updated_at, variants, ab_test, deliver_at)
      values (${id}, ${projectId}, ${c.name}, ${c.description}, ${c.subject}, ${c.body}, ${c.from}, ${c.fromName},
        ${c.replyTo}, ${c.audience.type}, ${c.audience.segmentId}, ${filterParam(c.audience)}::jsonb, ${c.audience.topicId}, 'DRAFT', now(), now(),
        ${jsonOrNull(c.ab.variants)}::jsonb, ${jsonOrNull(c.ab.abTest)}::jsonb, ${jsonOrNull(c.deliverAt)}::jsonb)
      returning *`;
    return row!;
  },

  async get(q: Q, projectId: string, id: string): Promise<CampaignRow | null> {
    const [row] = await q<CampaignRow[]>`select * from campaigns where project_id = ${projectId} and id = ${id}`;
    return row ?? null;
  },

  /** Newest first, by page number. */
  async list(q: Q, projectId: string, opts: { status?: CampaignStatus; limit: number; offset: number }) {
    const status = opts.status ? q`and status = ${opts.status}` : q``;
    const rows = await q<CampaignRow[]>`
      select * from campaigns where project_id = ${projectId} ${status}
      order by created_at desc, id desc limit ${opts.limit} offset ${opts.offset}`;
    const [count] = await q<{ n: number }[]>`select count(*)::int as n from campaigns where project_id = ${projectId} ${status}`;
    return { rows, total: count?.n ?? 0 };
  },

  /** Rewrites the content of a DRAFT; null when the campaign is not (or no longer) a DRAFT. */
  async updateDraft(q: Q, projectId: string, id: string, c: CampaignContent): Promise<CampaignRow | null> {
    const [row] = await q<CampaignRow[]>`
      update campaigns set name = ${c.name}, description = ${c.description}, subject = ${c.subject}, body = ${c.body},
        from_email = ${c.from}, from_name = ${c.fromName}, reply_to = ${c.replyTo}, audience_type = ${c.audience.type},
        segment_id = ${c.audience.segmentId}, audience_filter = ${filterParam(c.audience)}::jsonb, topic_id = ${c.audience.topicId},
        updated_at = now(), variants = ${jsonOrNull(c.ab.variants)}::jsonb, ab_test = ${jsonOrNull(c.ab.abTest)}::jsonb,
        deliver_at = ${jsonOrNull(c.deliverAt)}::jsonb
      where project_id = ${projectId} and id = ${id} and status = 'DRAFT'
      returning *`;
    return row ?? null;
  },

  async deleteDraft(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from campaigns where project_id = ${projectId} and id = ${id} and status = 'DRAFT' returning id`;
    return rows.length > 0;
  },

  /**
   * DRAFT or SCHEDULED → SENDING now, or → SCHEDULED at `at`. `requestId`: the send's
   * Idempotency-Key claim, kept to answer a retry of it (null without a key).
   */
  async startOrSchedule(q: Q, projectId: string, id: string, at: Date | null, requestId: string | null): Promise<CampaignRow | null> {
    const [row] = at
      ? await q<CampaignRow[]>`
          update campaigns set status = 'SCHEDULED', scheduled_at = ${iso(at)}, send_request_id = ${requestId}, updated_at = now()
          where project_id = ${projectId} and id = ${id} and status in ('DRAFT', 'SCHEDULED') returning *`
      : await q<CampaignRow[]>`
          update campaigns set status = 'SENDING', started_at = now(), send_request_id = ${requestId}, updated_at = now()
          where project_id = ${projectId} and id = ${id} and status in ('DRAFT', 'SCHEDULED') returning *`;
    return row ?? null;
  },

  async cancelScheduled(q: Q, projectId: string, id: string): Promise<CampaignRow | null> {
    const [row] = await q<CampaignRow[]>`
      update campaigns set status = 'DRAFT', scheduled_at = null, updated_at = now()
      where project_id = ${projectId} and id = ${id} and status = 'SCHEDULED' returning *`;
    return row ?? null;
  },

  /**
   * Starts every campaign whose time has come. The status test in the UPDATE makes each start happen
   * once however many replicas run this at the same moment (SKIP LOCKED keeps them from queueing on
   * each other's rows), and a replica that was down at the due time starts it on its first tick.
   */
  async startDue(q: Q, limit = 100): Promise<string[]> {
    const rows = await q<{ id: string }[]>`
      update campaigns set status = 'SENDING', started_at = now(), updated_at = now()
      where id in (
        select id from campaigns where status = 'SCHEDULED' and scheduled_at <= now()
        order by scheduled_at limit ${limit} for update skip locked)
        and status = 'SCHEDULED'
      returning id`;
    return rows.map((r) => r.id);
  },

  /**
   * SENDING → SENT for the given campaigns (all SENDING ones when omitted) once their fan-out is done
   * and every recipient's job has ended. Never before the fan-out completes: until then the
   * recipient count is not final.
   */
  async completeFinished(q: Q, ids?: string[]): Promise<string[]> {
    const only = ids ? q`and id = any(${ids}::uuid[])` : q``;
    const rows = await q<{ id: string }[]>`
      update campaigns set status = 'SENT', sent_at = now(), updated_at = now()
      where status = 'SENDING' and fanout_done_at is not null and ended >= recipients ${only}
      returning id`;
    return rows.map((r) => r.id);
  },

  /** SENDING campaigns whose fan-out waits for a local time, with that time (Scheduler.releaseHolds). */
  async held(q: Q, limit = 1000): Promise<Array<{ id: string; project_id: string; hold_until: Date }>> {
    return q`
      select id, project_id, hold_until from campaigns where status = 'SENDING' and hold_until is not null
      order by hold_until limit ${limit}`;
  },

  /** Lets the fan-out claim the campaign again; only the hold this replica saw (not a newer one). */
  async releaseHold(q: Q, id: string, holdUntil: Date): Promise<boolean> {
    const rows = await q`update campaigns set hold_until = null where id = ${id} and hold_until = ${iso(holdUntil)} returning id`;
    return rows.length > 0;
  },
});
