import { z } from "zod";
import { defineRoute } from "../route.js";
import { Id, Timestamp } from "../common.js";

/**
 * Sending analytics for the dashboard (decisions.md §13): counts of email events per hour or day,
 * kept by a consumer of the email events, so answering never scans the emails table.
 */
export const STATS_INTERVALS = ["hour", "day"] as const;
export const StatsInterval = z.enum(STATS_INTERVALS);
export type StatsInterval = z.infer<typeof StatsInterval>;

/** At most this many points per answer: a year of days, or about six weeks of hours. */
export const MAX_STATS_POINTS = 1000;

export const StatsQuery = z.object({
  from: Timestamp,
  to: Timestamp,
  interval: StatsInterval.default("day"),
  campaignId: Id.optional(),
});
export type StatsQuery = z.infer<typeof StatsQuery>;

/**
 * Each counter counts emails, not events: an email counts once per counter, in the bucket of its
 * first such event. So `opened` and `clicked` are unique opens and clicks (the basis of open and
 * click rates, as the email's own OPENED/CLICKED and the campaign's stats); the total opens and
 * clicks of one email are its record's `opens` and `clicks`. `bounced` counts permanent bounces only,
 * `unsubscribed` unsubscribes through an email's link, `failed` emails that will never be sent.
 */
export const StatsPoint = z.object({
  /** Start of the hour or day (UTC). */
  at: Timestamp,
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  unsubscribed: z.number().int(),
  failed: z.number().int(),
});
export type StatsPoint = z.infer<typeof StatsPoint>;

export const StatsSeries = z.object({ series: z.array(StatsPoint) });
export type StatsSeries = z.infer<typeof StatsSeries>;

export const statsRoutes = [
  defineRoute({
    service: "sending",
    auth: "secret",
    tag: "Emails",
    method: "GET",
    path: "/stats",
    operation: "sending.stats",
    summary: "Emails sent, delivered, opened, clicked… per UTC hour or day (unique per email; every point from the bucket of `from` through the bucket of `to`, zeros included)",
    query: StatsQuery,
    response: StatsSeries,
    status: 200,
  }),
];
