import { json, traced, type Q } from "@mailroom/kit";

/** Clicks on one link index of one email, gathered by the write-behind recorder. */
export interface LinkClicksDelta {
  emailId: string;
  projectId: string;
  linkIndex: number;
  clicks: number;
}

export interface LinkClicksRow {
  url: string;
  clicks: number;
  uniqueClicks: number;
}

export const linkClicksRepo = traced("LinkClicksRepo", {
  /**
   * Adds a batch of clicks to their campaigns' link counters in one statement (mail of no campaign
   * is skipped). An (email, URL) pair seen for the first time is one more unique click. Counter rows
   * are upserted in key order, so two replicas flushing at once cannot deadlock.
   */
  async add(q: Q, deltas: LinkClicksDelta[]): Promise<void> {
    if (!deltas.length) return;
    const rows = deltas.map((d) => ({ email_id: d.emailId, project_id: d.projectId, link_idx: d.linkIndex, clicks: d.clicks }));
    await q`
      with v as (
        select * from jsonb_to_recordset(${json(rows)}::jsonb) as v(email_id uuid, project_id uuid, link_idx int, clicks int)),
      k as (
        select e.project_id, e.campaign_id, v.email_id, md5(e.links[v.link_idx + 1])::uuid as url_key,
          min(e.links[v.link_idx + 1]) as url, sum(v.clicks)::int as clicks
        from v join emails e on e.id = v.email_id and e.project_id = v.project_id
        where e.campaign_id is not null and e.links[v.link_idx + 1] is not null
        group by 1, 2, 3, 4),
      fresh as (
        insert into campaign_link_clickers (email_id, url_key)
        select email_id, url_key from k order by email_id, url_key
        on conflict do nothing
        returning email_id, url_key)
      insert into campaign_link_clicks as c (project_id, campaign_id, url_key, url, clicks, unique_clicks)
      select k.project_id, k.campaign_id, k.url_key, min(k.url), sum(k.clicks)::int, count(fresh.email_id)::int
      from k left join fresh on fresh.email_id = k.email_id and fresh.url_key = k.url_key
      group by k.project_id, k.campaign_id, k.url_key
      order by k.project_id, k.campaign_id, k.url_key
      on conflict (project_id, campaign_id, url_key) do update
        set clicks = c.clicks + excluded.clicks, unique_clicks = c.unique_clicks + excluded.unique_clicks`;
  },

  /** A campaign's links, most clicked first: an index range of its own counter rows. */
  async ofCampaign(q: Q, projectId: string, campaignId: string, limit: number): Promise<LinkClicksRow[]> {
    return q<LinkClicksRow[]>`
      select url, clicks, unique_clicks as "uniqueClicks" from campaign_link_clicks
      where project_id = ${projectId} and campaign_id = ${campaignId}
      order by clicks desc, unique_clicks desc, url
      limit ${limit}`;
  },
});
