import type { VariantStats } from "@mailroom/contracts";
import { traced, type Q, type Row, type Sql } from "@mailroom/kit";
import { pickWinner, sampleSize } from "../domain/ab-test.js";
import type { CampaignRow } from "./campaigns-repo.js";
import type { campaignVariants } from "./schema.js";

type VariantRow = Row<typeof campaignVariants>;

const toStats = (r: VariantRow): VariantStats => ({
  index: r.variant,
  recipients: r.recipients,
  sent: r.sent,
  delivered: r.delivered,
  opened: r.opened,
  clicked: r.clicked,
  bounced: r.bounced,
  complained: r.complained,
  unsubscribed: r.unsubscribed,
  failed: r.failed,
});

/**
 * The A/B test's durable steps: the sample drawn once from the whole audience, the wait as a
 * deadline in the row, and the winner picked once by whichever replica's scheduler gets there first.
 */
export const abRepo = traced("AbRepo", {
  /** The sample's stats per variant of each campaign named (none for a plain campaign or an undrawn sample). */
  async variantStats(q: Q, ids: string[]): Promise<Map<string, VariantStats[]>> {
    const byCampaign = new Map<string, VariantStats[]>();
    if (ids.length === 0) return byCampaign;
    const rows = await q<VariantRow[]>`select * from campaign_variants where campaign_id = any(${ids}::uuid[]) order by campaign_id, variant`;
    for (const r of rows) {
      const list = byCampaign.get(r.campaign_id) ?? [];
      list.push(toStats(r));
      byCampaign.set(r.campaign_id, list);
    }
    return byCampaign;
  },

  /**
   * Draws the sample from the whole audience (every recipient is in campaign_pending by now, none
   * handed over): ordered by a hash of campaign and contact, the first `sampleSize` go to the
   * variants in turn, so the split is even (sizes differ by one at most) and random with respect to
   * the contacts. In one transaction with `ab_sample_size`, so it happens once. Null: the lease is lost.
   */
  async drawSample(sql: Sql, c: CampaignRow, owner: string): Promise<number | null> {
    const variants = c.variants!.length;
    return (await sql.begin(async (tx) => {
      const [held] = await tx<Pick<CampaignRow, "ab_sample_size">[]>`
        select ab_sample_size from campaigns where id = ${c.id} and lease_owner = ${owner} and status = 'SENDING' for update`;
      if (!held) return null;
      if (held.ab_sample_size !== null) return held.ab_sample_size;
      const [count] = await tx<{ n: number }[]>`select count(*)::int as n from campaign_pending where campaign_id = ${c.id}`;
      const size = sampleSize(count!.n, c.ab_test!.samplePercent, variants);
      await tx`
        insert into campaign_variant_recipients (campaign_id, contact_id, variant)
        select ${c.id}, contact_id, (rank - 1) % ${variants}::int
        from (select contact_id, row_number() over (order by md5(${c.id}::text || ':' || contact_id), contact_id) as rank
              from campaign_pending where campaign_id = ${c.id}) ranked
        where rank <= ${size}`;
      await tx`
        insert into campaign_variants (campaign_id, variant, recipients)
        select ${c.id}, g, (select count(*) from campaign_variant_recipients where campaign_id = ${c.id} and variant = g)::int
        from generate_series(0, ${variants - 1}::int) g
        on conflict do nothing`;
      await tx`update campaigns set ab_sample_size = ${size} where id = ${c.id}`;
      return size;
    })) as number | null;
  },

  /**
   * Once every sampled recipient is handed to sending: the wait starts (a deadline the scheduler
   * watches) and the fan-out lets go of the campaign until the winner is known. False while sampled
   * recipients are still pending, or when the lease is lost.
   */
  async awaitWinner(q: Q, id: string, owner: string, waitMs: number): Promise<boolean> {
    const rows = await q`
      update campaigns set winner_due_at = now() + ${waitMs} * interval '1 millisecond', lease_owner = null, lease_until = null
      where id = ${id} and lease_owner = ${owner} and status = 'SENDING' and winner_due_at is null
        and not exists (select 1 from campaign_pending p join campaign_variant_recipients r using (campaign_id, contact_id)
                        where p.campaign_id = ${id})
      returning id`;
    return rows.length > 0;
  },

  /**
   * Picks the winner of every test whose wait is over, from its sample's stats at that moment. Each
   * campaign is decided once however many replicas tick (row locks, skipped when taken, and the
   * `winner_variant is null` test). Returns the campaigns decided.
   */
  async decideDue(sql: Sql, limit = 100): Promise<Array<{ id: string; winner: number }>> {
    return (await sql.begin(async (tx) => {
      const due = await tx<Pick<CampaignRow, "id" | "variants" | "ab_test">[]>`
        select id, variants, ab_test from campaigns
        where status = 'SENDING' and winner_variant is null and winner_due_at <= now()
        order by winner_due_at limit ${limit} for update skip locked`;
      if (due.length === 0) return [];
      const stats = await this.variantStats(tx, due.map((d) => d.id));
      const decided = due.map((d) => ({
        id: d.id,
        winner: pickWinner(
          (stats.get(d.id) ?? []).map((s) => ({ variant: s.index, sent: s.sent, opened: s.opened, clicked: s.clicked })),
          d.ab_test!.metric,
          d.variants!.length,
        ),
      }));
      await tx`
        update campaigns c set winner_variant = d.winner, updated_at = now()
        from unnest(${decided.map((d) => d.id)}::uuid[], ${decided.map((d) => d.winner)}::int[]) as d(id, winner)
        where c.id = d.id and c.winner_variant is null`;
      return decided;
    })) as Array<{ id: string; winner: number }>;
  },
});
