import type { StatsPoint } from "@mailroom/contracts";

const DAY = 86_400_000;

/** From the start (UTC) of the day `days - 1` days before `now`, to `now`: `days` daily points. */
export function lastDays(days: number, now: Date): { from: string; to: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(today - (days - 1) * DAY).toISOString(), to: now.toISOString() };
}

export type Counts = Omit<StatsPoint, "at">;

/** The series' counters summed over every point. */
export function totals(series: readonly StatsPoint[]): Counts {
  const sum: Counts = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0 };
  for (const point of series) for (const k of Object.keys(sum) as (keyof Counts)[]) sum[k] += point[k];
  return sum;
}
