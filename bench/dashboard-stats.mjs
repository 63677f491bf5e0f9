// The /stats part of `npm run bench -- dashboard`: a year of daily points over a project with
// 10,000,000 email events, beside a trivial keyed read of the same service (GET /settings/sending)
// in the same run. Target: p99 < 100 ms.
import { randomUUID } from "node:crypto";
import { serviceDb } from "./lib.mjs";

const CAMPAIGNS = 100;
const HOUR = 3_600_000;

/**
 * `count` email events over the year before `now`, written as the sending service's consumer writes
 * them (email_events, then the hourly counters summed from them), in two statements. Six in ten belong
 * to one of 100 campaigns, each sent on its own day with its events over the next three days (most in
 * the first hours); the rest are transactional, spread over the year. Types in the proportions of a
 * healthy sender: sent, delivered, opened, clicked, a few bounces, unsubscribes and complaints.
 */
export async function seedEmailEvents(platform, projectId, count, now = new Date()) {
  const sql = serviceDb(platform, "sending");
  const yearStart = new Date(Math.floor(now.getTime() / HOUR) * HOUR - 365 * 24 * HOUR);
  const campaigns = Array.from({ length: CAMPAIGNS }, () => randomUUID());
  const idPrefix = `${randomUUID().slice(0, 8)}-0000-7000-8000-`;
  try {
    await sql`set synchronous_commit = off`;
    await sql`
      insert into email_events (id, project_id, email_id, campaign_id, type, counter, occurred_at, details)
      select seq.id, ${projectId}::uuid, seq.id, c.id,
        t.type, t.counter,
        case when c.id is null then ${yearStart}::timestamptz + random() * interval '365 days'
             else ${yearStart}::timestamptz + (i % ${CAMPAIGNS}) * interval '3.6 days' + power(random(), 3) * interval '72 hours' end,
        '{}'::jsonb
      from generate_series(1, ${count}::int) i
      -- ascending ids, as UUIDv7s are: the indexes grow at their right edge (one email per event is
      -- enough for counting)
      cross join lateral (select (${idPrefix} || lpad(to_hex(i), 12, '0'))::uuid as id) seq
      cross join lateral (select case when i % 10 < 6 then (${campaigns}::uuid[])[1 + i % ${CAMPAIGNS}] end as id) c
      cross join lateral (select case
        when i % 100 < 40 then 'SENT' when i % 100 < 78 then 'DELIVERED' when i % 100 < 90 then 'OPENED'
        when i % 100 < 96 then 'CLICKED' when i % 100 < 98 then 'BOUNCED' when i % 100 < 99 then 'UNSUBSCRIBED'
        else 'COMPLAINED' end as type) k
      cross join lateral (select k.type, lower(k.type) as counter) t`;
    await sql`
      insert into email_stats_hourly (project_id, campaign_id, hour, sent, delivered, opened, clicked, bounced, complained, unsubscribed, failed)
      select project_id, campaign_id, date_trunc('hour', occurred_at, 'UTC'),
        count(*) filter (where counter = 'sent'), count(*) filter (where counter = 'delivered'),
        count(*) filter (where counter = 'opened'), count(*) filter (where counter = 'clicked'),
        count(*) filter (where counter = 'bounced'), count(*) filter (where counter = 'complained'),
        count(*) filter (where counter = 'unsubscribed'), count(*) filter (where counter = 'failed')
      from email_events where project_id = ${projectId} group by 1, 2, 3`;
    await sql`analyze email_events`;
    await sql`analyze email_stats_hourly`;
    const [{ buckets }] = await sql`select count(*)::int as buckets from email_stats_hourly where project_id = ${projectId}`;
    return { campaigns, buckets };
  } finally {
    await sql.end();
  }
}

const percentile = (xs, p) => +[...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))].toFixed(1);

/** p50 and p99 of `GET /stats` for the year by day, alternated with the baseline read, `runs` each. */
export async function measureStats(api, now = new Date(), runs = 300) {
  const to = now.toISOString();
  const from = new Date(now.getTime() - 364 * 24 * HOUR).toISOString();
  const statsPath = `/stats?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&interval=day`;
  const timed = async (path) => {
    const started = performance.now();
    const res = await api.get(path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { ms: performance.now() - started, body: res.body };
  };
  const first = await timed(statsPath);
  const points = first.body.series.length;
  const sent = first.body.series.reduce((s, p) => s + p.sent, 0);
  for (let i = 0; i < 20; i++) await Promise.all([timed(statsPath), timed("/settings/sending")]);
  const stats = [];
  const baseline = [];
  for (let i = 0; i < runs; i++) {
    stats.push((await timed(statsPath)).ms);
    baseline.push((await timed("/settings/sending")).ms);
  }
  return {
    points,
    sent,
    runs,
    stats: { p50Ms: percentile(stats, 0.5), p99Ms: percentile(stats, 0.99) },
    baseline: { path: "/settings/sending", p50Ms: percentile(baseline, 0.5), p99Ms: percentile(baseline, 0.99) },
  };
}
