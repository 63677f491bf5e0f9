/**
 * Warm-up of a new sender domain (decisions.md §18): a daily cap per mailbox provider that starts at
 * 50 and doubles each day the domain's mail of the day before had few bounces and complaints, because
 * providers judge a new domain by its first days' volume and complaints. Mail over the cap waits for
 * the next day; it is not failed and its wait is no attempt toward its expiry.
 */
export const WARMUP_START = 50;
/** Past this the cap is no limit worth keeping; it stops doubling. */
export const WARMUP_MAX = 10_000_000;
export const MAX_BOUNCE_RATE = 0.02;
export const MAX_COMPLAINT_RATE = 0.001;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface DayOutcome {
  sent: number;
  bounced: number;
  complained: number;
}

/**
 * The cap of the day after one with `cap` and `outcome`: doubled when mail was sent and its bounce and
 * complaint rates stayed low; kept when nothing was sent (nothing was learnt) or the rates were high.
 */
export function nextCap(cap: number, outcome: DayOutcome): number {
  if (outcome.sent <= 0) return cap;
  const good = outcome.bounced / outcome.sent < MAX_BOUNCE_RATE && outcome.complained / outcome.sent < MAX_COMPLAINT_RATE;
  return good ? Math.min(WARMUP_MAX, cap * 2) : cap;
}

/** The warm-up day of an instant: its UTC date, `YYYY-MM-DD`. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The start of the day of `day` (`YYYY-MM-DD`), and of the one before. */
export function dayStart(day: string, offsetDays = 0): Date {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + offsetDays * DAY_MS);
}

/** How long from `now` until the next warm-up day starts. */
export function msUntilNextDay(now: Date): number {
  return dayStart(dayOf(now), 1).getTime() - now.getTime();
}
