import { traced, type Q, type Row, type Sql } from "@mailroom/kit";
import { zeroDeltas, type StatDeltas, type StatHit } from "../domain/stats.js";
import { campaignsRepo } from "./campaigns-repo.js";
import type { countedEmailEvents, countedMessages } from "./schema.js";

/**
 * The same new hits, counted in their variant's stats when the recipient is in an A/B test's sample
 * (found by campaign and contact; a recipient of the winner's send to the rest is in none). The
 * campaign's project must match, as above.
 */
async function addVariantHits(tx: Q, hits: Array<{ projectId: string; campaignId: string; contactId: string | null; kind: string }>) {
  const mine = hits.filter((h) => h.contactId !== null && h.kind !== "ended");
  if (mine.length === 0) return;
  const count = (k: string) => tx`count(*) filter (where f.kind = ${k})::int`;
  await tx`
    update campaign_variants v set
      sent = v.sent + d.sent, delivered = v.delivered + d.delivered, opened = v.opened + d.opened, clicked = v.clicked + d.clicked,
      bounced = v.bounced + d.bounced, complained = v.complained + d.complained, unsubscribed = v.unsubscribed + d.unsubscribed,
      failed = v.failed + d.failed
    from (
      select r.campaign_id, r.variant, ${count("sent")} as sent, ${count("delivered")} as delivered, ${count("opened")} as opened,
        ${count("clicked")} as clicked, ${count("bounced")} as bounced, ${count("complained")} as complained,
        ${count("unsubscribed")} as unsubscribed, ${count("failed")} as failed
      from unnest(${mine.map((h) => h.campaignId)}::uuid[], ${mine.map((h) => h.projectId)}::uuid[],
                  ${mine.map((h) => h.contactId!)}::text[], ${mine.map((h) => h.kind)}::text[]) as f(campaign_id, project_id, contact_id, kind)
      join campaigns c on c.id = f.campaign_id and c.project_id = f.project_id and c.variants is not null
      join campaign_variant_recipients r on r.campaign_id = f.campaign_id and r.contact_id = f.contact_id
      group by r.campaign_id, r.variant) d
    where v.campaign_id = d.campaign_id and v.variant = d.variant`;
}

export const statsRepo = traced("StatsRepo", {
  /**
   * Applies a batch of stat hits in one transaction: a hit counts the first time only (its event
   * batch is new in counted_messages, or, alone, its email and stat are new in
   * counted_email_events), the new ones are summed per campaign and added to its counters, and the
   * campaigns touched are checked for completion. Returns the campaigns that became SENT.
   */
  async applyHits(sql: Sql, hits: StatHit[]): Promise<string[]> {
    if (hits.length === 0) return [];
    const owner = new Map<string, StatHit>();
    const emailIds: string[] = [];
    const kinds: string[] = [];
    const batchIds = new Set<string>();
    for (const h of hits) {
      if (h.batchId !== null) {
        batchIds.add(h.batchId);
        continue;
      }
      owner.set(h.emailId, h);
      for (const k of h.kinds) {
        emailIds.push(h.emailId);
        kinds.push(k);
      }
    }
    return (await sql.begin(async (tx) => {
      const batches = batchIds.size
        ? await tx<Pick<Row<typeof countedMessages>, "id">[]>`
            insert into counted_messages (id) select unnest(${[...batchIds]}::uuid[]) on conflict do nothing returning id`
        : [];
      const singles = emailIds.length
        ? await tx<Pick<Row<typeof countedEmailEvents>, "email_id" | "kind">[]>`
            insert into counted_email_events (email_id, kind)
            select distinct e, k from unnest(${emailIds}::uuid[], ${kinds}::text[]) as t(e, k)
            on conflict do nothing returning email_id, kind`
        : [];
      const newBatches = new Set(batches.map((b) => b.id));
      const fresh = [
        ...hits.filter((h) => h.batchId !== null && newBatches.has(h.batchId)).flatMap((h) => h.kinds.map((kind) => ({ hit: h, kind }))),
        ...singles.map((row) => ({ hit: owner.get(row.email_id)!, kind: row.kind })),
      ];
      if (fresh.length === 0) return [];

      const perCampaign = new Map<string, { projectId: string; deltas: StatDeltas }>();
      for (const { hit, kind } of fresh) {
        const entry = perCampaign.get(hit.campaignId) ?? { projectId: hit.projectId, deltas: zeroDeltas() };
        entry.deltas[kind as keyof StatDeltas] += 1;
        perCampaign.set(hit.campaignId, entry);
      }
      const ids = [...perCampaign.keys()];
      const column = (k: keyof StatDeltas) => ids.map((id) => perCampaign.get(id)!.deltas[k]);
      const projects = ids.map((id) => perCampaign.get(id)!.projectId);
      // The project must match too: an event can only move the stats of its own project's campaign.
      await tx`
        update campaigns c set
          sent = c.sent + d.sent, delivered = c.delivered + d.delivered, opened = c.opened + d.opened,
          clicked = c.clicked + d.clicked, bounced = c.bounced + d.bounced, complained = c.complained + d.complained,
          unsubscribed = c.unsubscribed + d.unsubscribed, failed = c.failed + d.failed, skipped = c.skipped + d.skipped,
          ended = c.ended + d.ended
        from unnest(${ids}::uuid[], ${projects}::uuid[], ${column("sent")}::int[], ${column("delivered")}::int[],
                    ${column("opened")}::int[], ${column("clicked")}::int[], ${column("bounced")}::int[],
                    ${column("complained")}::int[], ${column("unsubscribed")}::int[], ${column("failed")}::int[],
                    ${column("skipped")}::int[], ${column("ended")}::int[])
          as d(id, project_id, sent, delivered, opened, clicked, bounced, complained, unsubscribed, failed, skipped, ended)
        where c.id = d.id and c.project_id = d.project_id`;
      await addVariantHits(tx, fresh.map(({ hit, kind }) => ({ ...hit, kind })));
      return campaignsRepo.completeFinished(tx, ids);
    })) as string[];
  },

  /** Nothing older than the EVENTS stream's max age can be redelivered, so its marks can go. */
  async purgeCounted(q: Q): Promise<void> {
    await q`delete from counted_email_events where counted_at < now() - interval '8 days'`;
    await q`delete from counted_messages where counted_at < now() - interval '8 days'`;
  },
});
