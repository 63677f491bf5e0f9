import { MAX_STATS_POINTS, type StatsInterval, type StatsPoint } from "@mailroom/contracts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The periods the Overview offers, each ending now. */
export const RANGES = [
  { key: "24h", label: "Last 24 hours", days: 1 },
  { key: "7d", label: "Last 7 days", days: 7 },
  { key: "30d", label: "Last 30 days", days: 30 },
  { key: "90d", label: "Last 90 days", days: 90 },
  { key: "365d", label: "Last 12 months", days: 365 },
] as const;
export type RangeKey = (typeof RANGES)[number]["key"];
export type Range = (typeof RANGES)[number];

export const DEFAULT_RANGE: RangeKey = "7d";

export function rangeByKey(key: string | null): Range {
  return RANGES.find((r) => r.key === key) ?? RANGES.find((r) => r.key === DEFAULT_RANGE)!;
}

/** Hourly points fit the API's bound only for short ranges; a day is too short for daily points. */
export function intervalsOf(range: Range): StatsInterval[] {
  const hourly = range.days * 24 <= MAX_STATS_POINTS;
  const daily = range.days > 1;
  return [...(hourly ? (["hour"] as const) : []), ...(daily ? (["day"] as const) : [])];
}

/** The interval asked for when it suits the range, else the range's first (hours for a day, days for a year). */
export function intervalFor(range: Range, asked: string | null): StatsInterval {
  const allowed = intervalsOf(range);
  return allowed.find((i) => i === asked) ?? (allowed.includes("day") ? "day" : allowed[0]!);
}

/**
 * From the start (UTC) of the first day or hour of the range to `now`: `days` daily points, or
 * `days × 24` hourly ones, the last of them the current (partial) day or hour.
 */
export function bounds(range: Range, interval: StatsInterval, now: Date): { from: string; to: string } {
  const step = interval === "hour" ? HOUR : DAY;
  const current = Math.floor(now.getTime() / step) * step;
  const points = interval === "hour" ? range.days * 24 : range.days;
  return { from: new Date(current - (points - 1) * step).toISOString(), to: now.toISOString() };
}

export type Counts = Omit<StatsPoint, "at">;

/** The series' counters summed over every point. */
export function totals(series: readonly StatsPoint[]): Counts {
  const sum: Counts = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0 };
  for (const point of series) for (const k of Object.keys(sum) as (keyof Counts)[]) sum[k] += point[k];
  return sum;
}

/** Each point's rates over its own sends, in percent (null where nothing was sent: no line, not a zero). */
export function ratesOf(series: readonly StatsPoint[]) {
  const pct = (part: number, whole: number) => (whole > 0 ? +((part / whole) * 100).toFixed(2) : null);
  return series.map((p) => ({
    at: p.at,
    delivered: pct(p.delivered, p.sent),
    opened: pct(p.opened, p.sent),
    clicked: pct(p.clicked, p.sent),
    bounced: pct(p.bounced, p.sent),
  }));
}
