import type { PagedContact } from "@mailroom/contracts";
import { json, traced, type Q, type Row, type Sql } from "@mailroom/kit";
import type { CampaignRow } from "./campaigns-repo.js";
import type { campaignPending } from "./schema.js";

/** What a fan-out's window is made of (`fanoutRepo.lane`). */
export type LaneRow = Pick<CampaignRow, "ended"> & {
  outstanding: number;
  totalRate: number;
  projects: number;
  projectCampaigns: number;
};

/** `variant`: the A/B variant of a sampled recipient, null for the rest (and for a plain campaign). */
export type PendingRow = Pick<Row<typeof campaignPending>, "contact_id" | "email" | "data"> & { variant: number | null };

/**
 * The fan-out's state: a lease (one running fan-out per campaign across replicas), the keyset
 * checkpoint, and the pending recipients between the audience and the sending service.
 */
export const fanoutRepo = traced("FanoutRepo", {
  /**
   * Takes one SENDING campaign whose fan-out is unfinished and whose lease is free or expired: first
   * those of projects with the fewest fan-outs running, then the oldest, so that a project with many
   * campaigns cannot take every fan-out slot while another project's campaign waits.
   */
  async claim(q: Q, owner: string, leaseMs: number): Promise<CampaignRow | null> {
    const [row] = await q<CampaignRow[]>`
      update campaigns set lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
      where id = (
        select c.id from campaigns c
        where c.status = 'SENDING' and c.fanout_done_at is null and (c.lease_until is null or c.lease_until < now())
          -- an A/B test in its wait: nothing to hand over until the winner is picked
          and (c.winner_due_at is null or c.winner_variant is not null)
          -- local-time delivery: every pending recipient waits for its time (the scheduler clears it)
          and c.hold_until is null
        order by (select count(*) from campaigns r
                  where r.project_id = c.project_id and r.status = 'SENDING' and r.fanout_done_at is null and r.lease_until >= now()),
                 c.started_at
        limit 1 for update skip locked)
      returning *`;
    return row ?? null;
  },

  /** False when the lease was lost (expired and taken by another replica). */
  async renew(q: Q, id: string, owner: string, leaseMs: number): Promise<boolean> {
    const rows = await q`
      update campaigns set lease_until = now() + ${leaseMs} * interval '1 millisecond'
      where id = ${id} and lease_owner = ${owner} and status = 'SENDING' returning id`;
    return rows.length > 0;
  },

  /**
   * Records one audience page: its contacts become pending recipients and the checkpoint moves past
   * them, in one transaction and only while this owner still holds the lease. `ended`: this was the
   * audience's last page, so the recipient count is final. `dueAt`: per contact, when a local-time
   * campaign may hand it over (null: at once); those with one count as waiting.
   */
  async addPage(sql: Sql, id: string, owner: string, contacts: PagedContact[], ended: boolean, dueAt: Array<Date | null>): Promise<boolean> {
    return (await sql.begin(async (tx) => {
      const [held] = await tx`select 1 from campaigns where id = ${id} and lease_owner = ${owner} and status = 'SENDING' for update`;
      if (!held) return false;
      let added = 0;
      let waiting = 0;
      if (contacts.length) {
        const inserted = await tx<{ due_at: Date | null }[]>`
          insert into campaign_pending (campaign_id, contact_id, email, data, due_at)
          select ${id}, c, e, d::jsonb, t
          from unnest(${contacts.map((c) => c.id)}::text[], ${contacts.map((c) => c.email)}::text[],
                      ${contacts.map((c) => json(c.data))}::text[], ${dueAt.map((d) => d?.toISOString() ?? null)}::timestamptz[]) as p(c, e, d, t)
          on conflict do nothing returning due_at`;
        added = inserted.length;
        waiting = inserted.filter((r) => r.due_at !== null).length;
      }
      const last = contacts.at(-1)?.id ?? null;
      await tx`
        update campaigns set recipients = recipients + ${added}, waiting = waiting + ${waiting}, audience_done = ${ended},
          last_contact_id = coalesce(${last}, last_contact_id)
        where id = ${id}`;
      return true;
    })) as boolean;
  },

  /**
   * Records this fan-out's delivery rate and reads what its window is made of: its recipients
   * handed to sending and not yet ended, and the running fan-outs (leases alive) that share the bulk
   * lane. Null when the lease is lost. Recipients answered by sending but not yet settled still count
   * as pending here, so `outstanding` is low by at most the batch in hand.
   */
  async lane(q: Q, id: string, owner: string, rate: number): Promise<LaneRow | null> {
    const [row] = await q<LaneRow[]>`
      with me as (
        update campaigns set send_rate = ${rate}
        where id = ${id} and lease_owner = ${owner} and status = 'SENDING'
        returning project_id, recipients, ended),
      running as (
        select project_id, send_rate from campaigns
        where status = 'SENDING' and fanout_done_at is null and lease_until >= now())
      select me.ended,
        me.recipients - me.ended - (select count(*) from campaign_pending where campaign_id = ${id})::int as outstanding,
        (select coalesce(sum(send_rate), 0) from running)::float8 as "totalRate",
        (select count(distinct project_id) from running)::int as projects,
        (select count(*) from running r where r.project_id = me.project_id)::int as "projectCampaigns"
      from me`;
    return row ?? null;
  },

  /**
   * `sampleOnly`: an A/B test before its winner is known hands over its sampled recipients only
   * (none before the sample is drawn); the rest wait in campaign_pending for the winner. Recipients
   * whose local time is after `now` (the project's time) stay too.
   */
  async pending(q: Q, id: string, limit: number, now: Date, sampleOnly = false): Promise<PendingRow[]> {
    const only = sampleOnly ? q`and r.variant is not null` : q``;
    return q<PendingRow[]>`
      select p.contact_id, p.email, p.data, r.variant from campaign_pending p
      left join campaign_variant_recipients r on r.campaign_id = p.campaign_id and r.contact_id = p.contact_id
      where p.campaign_id = ${id} ${only} and (p.due_at is null or p.due_at <= ${now.toISOString()})
      order by p.contact_id limit ${limit}`;
  },

  /**
   * Removes the recipients sending.enqueue has taken (`queued`) or refused for good (`failed`: they
   * end at once, as failed). Counting only rows this call deleted keeps the counters exact when two
   * owners overlap after a lost lease.
   */
  async settle(sql: Sql, id: string, queued: string[], failed: string[]): Promise<void> {
    await sql.begin(async (tx) => {
      if (queued.length) {
        await tx`
          with gone as (delete from campaign_pending where campaign_id = ${id} and contact_id = any(${queued}::text[]) returning due_at)
          update campaigns set waiting = waiting - (select count(*) from gone where due_at is not null)::int
          where id = ${id} and exists (select 1 from gone where due_at is not null)`;
      }
      if (failed.length) {
        // a sampled recipient's failure is its variant's too
        await tx`
          with gone as (delete from campaign_pending where campaign_id = ${id} and contact_id = any(${failed}::text[]) returning contact_id, due_at),
          per_variant as (
            update campaign_variants v set failed = v.failed + g.n
            from (select r.variant, count(*)::int as n from gone join campaign_variant_recipients r
                  on r.campaign_id = ${id} and r.contact_id = gone.contact_id group by r.variant) g
            where v.campaign_id = ${id} and v.variant = g.variant)
          update campaigns set failed = failed + (select count(*) from gone)::int, ended = ended + (select count(*) from gone)::int,
            waiting = waiting - (select count(*) from gone where due_at is not null)::int
          where id = ${id}`;
      }
    });
  },

  /** The fan-out is complete once the audience has ended and nothing is pending; releases the lease. */
  async finish(q: Q, id: string, owner: string): Promise<boolean> {
    const rows = await q`
      update campaigns set fanout_done_at = now(), lease_owner = null, lease_until = null
      where id = ${id} and lease_owner = ${owner} and status = 'SENDING' and audience_done
        and not exists (select 1 from campaign_pending where campaign_id = ${id})
      returning id`;
    return rows.length > 0;
  },

  /**
   * Local-time delivery, once the audience is read and nothing pending is due: gives the lease back
   * and holds the fan-out until the earliest due time, so no replica polls the campaign meanwhile.
   * Durable like everything else here: the pending rows keep their due times across restarts.
   */
  async hold(q: Q, id: string, owner: string): Promise<Date | null> {
    const [row] = await q<{ hold_until: Date | null }[]>`
      update campaigns set lease_owner = null, lease_until = null,
        hold_until = (select min(due_at) from campaign_pending where campaign_id = ${id})
      where id = ${id} and lease_owner = ${owner} and status = 'SENDING'
        and exists (select 1 from campaign_pending where campaign_id = ${id} and due_at is not null)
      returning hold_until`;
    return row?.hold_until ?? null;
  },

  /** Gives the lease back early (shutdown), so another replica resumes without waiting it out. */
  async release(q: Q, id: string, owner: string): Promise<void> {
    await q`update campaigns set lease_owner = null, lease_until = null where id = ${id} and lease_owner = ${owner}`;
  },
});
