import { AppError, MAX_STATS_POINTS, type StatsInterval, type StatsPoint } from "@mailroom/contracts";

/** Milliseconds of one point (UTC has no daylight-saving days). */
export const stepMs = (interval: StatsInterval): number => (interval === "hour" ? 3_600_000 : 86_400_000);

/** The start of the UTC hour or day holding `t` (days and hours have fixed lengths in UTC). */
export function bucketStart(t: Date, interval: StatsInterval): Date {
  const step = stepMs(interval);
  return new Date(Math.floor(t.getTime() / step) * step);
}

export interface StatsRange {
  interval: StatsInterval;
  /** Start of the first point: the bucket holding `from`. */
  first: Date;
  /** Start of the last point: the bucket holding `to`. */
  last: Date;
  points: number;
}

/**
 * The points of a /stats answer: every bucket from the one holding `from` through the one holding
 * `to`, both included (so `to=now` includes the current hour or day). `from` after `to`, or more
 * than MAX_STATS_POINTS points, is a validation error naming the field to change.
 */
export function statsRange(from: Date, to: Date, interval: StatsInterval): StatsRange {
  if (from.getTime() > to.getTime()) {
    throw AppError.validation("`from` must not be after `to`", [{ path: "query.from", message: "must not be after `to`" }]);
  }
  const first = bucketStart(from, interval);
  const last = bucketStart(to, interval);
  const points = (last.getTime() - first.getTime()) / stepMs(interval) + 1;
  if (points > MAX_STATS_POINTS) {
    const message = `the range holds ${points} ${interval} points, more than ${MAX_STATS_POINTS}: narrow it${interval === "hour" ? " or use interval=day" : ""}`;
    throw AppError.validation(message, [{ path: "query.to", message }]);
  }
  return { interval, first, last, points };
}

export type StatsCounts = Omit<StatsPoint, "at">;

export const zeroCounts = (): StatsCounts => ({
  sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0,
});

/** Every point of the range in order, with the counts of the buckets that had any and zeros elsewhere. */
export function fillSeries(range: StatsRange, rows: Array<{ at: Date } & StatsCounts>): StatsPoint[] {
  const byStart = new Map(rows.map(({ at, ...counts }) => [at.getTime(), counts]));
  const step = stepMs(range.interval);
  const series: StatsPoint[] = [];
  for (let i = 0; i < range.points; i++) {
    const t = range.first.getTime() + i * step;
    series.push({ at: new Date(t).toISOString(), ...(byStart.get(t) ?? zeroCounts()) });
  }
  return series;
}
