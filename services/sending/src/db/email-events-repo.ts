import type { EmailEvent, StatsInterval } from "@mailroom/contracts";
import { iso, json, traced, type Q, type Row } from "@mailroom/kit";
import type { TimelineEvent } from "../domain/email-events.js";
import { stepMs, type StatsCounts, type StatsRange } from "../domain/stats.js";
import type { emailEvents } from "./schema.js";

type EventRow = Row<typeof emailEvents>;

export const emailEventsRepo = traced("EmailEventsRepo", {
  /**
   * Stores a batch of events and adds to the hourly counters, in one statement: only the events
   * inserted now count (an event id already stored, a redelivery, adds nothing), and of those only
   * the first of its counter for its email (stored before, or earlier in this batch), so `opened` is
   * emails opened, as the email's own OPENED. Returns how many counters moved.
   */
  async record(q: Q, events: TimelineEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const given = json(
      events.map((e) => ({
        id: e.id, project_id: e.projectId, email_id: e.emailId, campaign_id: e.campaignId, type: e.type,
        counter: e.counter, occurred_at: e.occurredAt.toISOString(), details: e.details,
      })),
    );
    // The outer statement reads email_events as it was before this statement, so the `not exists`
    // sees earlier batches only; `distinct on` takes the first of this batch.
    const [row] = await q<{ counted: number }[]>`
      with ins as (
        insert into email_events (id, project_id, email_id, campaign_id, type, counter, occurred_at, details)
        select id, project_id, email_id, campaign_id, type, counter, occurred_at, coalesce(details, '{}'::jsonb)
        from jsonb_to_recordset(${given}::jsonb) as g(id uuid, project_id uuid, email_id uuid, campaign_id uuid, type text,
          counter text, occurred_at timestamptz, details jsonb)
        on conflict (id) do nothing
        returning project_id, email_id, campaign_id, counter, occurred_at),
      fresh as (
        select distinct on (i.email_id, i.counter) i.* from ins i
        where i.counter is not null
          and not exists (select 1 from email_events e where e.email_id = i.email_id and e.counter = i.counter)
        order by i.email_id, i.counter, i.occurred_at),
      counted as (
        insert into email_stats_hourly as s (project_id, campaign_id, hour, sent, delivered, opened, clicked, bounced,
          complained, unsubscribed, failed)
        select project_id, campaign_id, date_trunc('hour', occurred_at, 'UTC'),
          count(*) filter (where counter = 'sent'), count(*) filter (where counter = 'delivered'),
          count(*) filter (where counter = 'opened'), count(*) filter (where counter = 'clicked'),
          count(*) filter (where counter = 'bounced'), count(*) filter (where counter = 'complained'),
          count(*) filter (where counter = 'unsubscribed'), count(*) filter (where counter = 'failed')
        from fresh group by 1, 2, 3
        on conflict (project_id, hour, campaign_id) do update set
          sent = s.sent + excluded.sent, delivered = s.delivered + excluded.delivered, opened = s.opened + excluded.opened,
          clicked = s.clicked + excluded.clicked, bounced = s.bounced + excluded.bounced,
          complained = s.complained + excluded.complained, unsubscribed = s.unsubscribed + excluded.unsubscribed,
          failed = s.failed + excluded.failed)
      select (select count(*) from fresh)::int as counted`;
    return row?.counted ?? 0;
  },

  /** The email's stored events, oldest first (ties in the order they were stored cannot be told apart: by id). */
  async timeline(q: Q, projectId: string, emailId: string): Promise<EmailEvent[]> {
    const rows = await q<Pick<EventRow, "id" | "email_id" | "type" | "occurred_at" | "details">[]>`
      select id, email_id, type, occurred_at, details from email_events
      where email_id = ${emailId} and project_id = ${projectId}
      order by occurred_at, id`;
    return rows.map((r) => ({ id: r.id, emailId: r.email_id, type: r.type, occurredAt: iso(r.occurred_at), details: r.details }));
  },

  /**
   * The counts per hour or day of the range, summed from the hourly buckets (only buckets that have
   * any: the caller fills the gaps). Reads the (project_id, hour) range of the bucket key, or the
   * campaign's index.
   */
  async series(q: Q, projectId: string, range: StatsRange, campaignId: string | null): Promise<Array<{ at: Date } & StatsCounts>> {
    const until = new Date(range.last.getTime() + stepMs(range.interval));
    const interval: StatsInterval = range.interval;
    const rows = await q<({ at: Date } & Record<keyof StatsCounts, number>)[]>`
      select date_trunc(${interval}, hour, 'UTC') as at,
        sum(sent)::float8 as sent, sum(delivered)::float8 as delivered, sum(opened)::float8 as opened,
        sum(clicked)::float8 as clicked, sum(bounced)::float8 as bounced, sum(complained)::float8 as complained,
        sum(unsubscribed)::float8 as unsubscribed, sum(failed)::float8 as failed
      from email_stats_hourly
      where project_id = ${projectId} and hour >= ${range.first} and hour < ${until}
        ${campaignId ? q`and campaign_id = ${campaignId}` : q``}
      group by 1`;
    return rows;
  },
});
