import { traced, type Q, type Row, type Sql } from "@mailroom/kit";
import { zeroDeltas, type StatDeltas, type StatHit } from "../domain/stats.js";
import { campaignsRepo } from "./campaigns-repo.js";
import type { countedEmailEvents } from "./schema.js";

export const statsRepo = traced("StatsRepo", {
  /**
   * Applies a batch of stat hits in one transaction: each (email, stat) pair is counted the first time
   * only (counted_email_events), the new ones are summed per campaign and added to its counters, and
   * the campaigns touched are checked for completion. Returns the campaigns that became SENT.
   */
  async applyHits(sql: Sql, hits: StatHit[]): Promise<string[]> {
    if (hits.length === 0) return [];
    const owner = new Map<string, StatHit>();
    const emailIds: string[] = [];
    const kinds: string[] = [];
    for (const h of hits) {
      owner.set(h.emailId, h);
      for (const k of h.kinds) {
        emailIds.push(h.emailId);
        kinds.push(k);
      }
    }
    return (await sql.begin(async (tx) => {
      const fresh = await tx<Pick<Row<typeof countedEmailEvents>, "email_id" | "kind">[]>`
        insert into counted_email_events (email_id, kind)
        select distinct e, k from unnest(${emailIds}::uuid[], ${kinds}::text[]) as t(e, k)
        on conflict do nothing returning email_id, kind`;
      if (fresh.length === 0) return [];

      const perCampaign = new Map<string, { projectId: string; deltas: StatDeltas }>();
      for (const row of fresh) {
        const hit = owner.get(row.email_id)!;
        const entry = perCampaign.get(hit.campaignId) ?? { projectId: hit.projectId, deltas: zeroDeltas() };
        entry.deltas[row.kind as keyof StatDeltas] += 1;
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
          unsubscribed = c.unsubscribed + d.unsubscribed, failed = c.failed + d.failed, ended = c.ended + d.ended
        from unnest(${ids}::uuid[], ${projects}::uuid[], ${column("sent")}::int[], ${column("delivered")}::int[],
                    ${column("opened")}::int[], ${column("clicked")}::int[], ${column("bounced")}::int[],
                    ${column("complained")}::int[], ${column("unsubscribed")}::int[], ${column("failed")}::int[],
                    ${column("ended")}::int[])
          as d(id, project_id, sent, delivered, opened, clicked, bounced, complained, unsubscribed, failed, ended)
        where c.id = d.id and c.project_id = d.project_id`;
      return campaignsRepo.completeFinished(tx, ids);
    })) as string[];
  },

  /** Nothing older than the EVENTS stream's max age can be redelivered, so its marks can go. */
  async purgeCounted(q: Q): Promise<void> {
    await q`delete from counted_email_events where counted_at < now() - interval '8 days'`;
  },
});
