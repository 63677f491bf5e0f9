/**
 * Wall-clock arithmetic in IANA time zones for local-time delivery and quiet hours (decisions.md
 * §18), on Intl alone: the zone rules are the runtime's (ICU), so no tz database ships with us.
 * Times of day are "HH:MM" strings already checked by the contracts.
 */

import { isTimeZone } from "@mailroom/contracts";

const formats = new Map<string, Intl.DateTimeFormat>();

function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formats.set(tz, f);
  }
  return f;
}

/**
 * Whether a contact's `data.timezone` (whatever the tenant stored) is a zone: the contracts' own
 * check, with the zones already in use answered from the formats kept for them.
 */
export function validZone(tz: unknown): tz is string {
  return typeof tz === "string" && tz.length > 0 && tz.length <= 100 && (formats.has(tz) || isTimeZone(tz));
}

/** A contact's zone: its data's `timezone` when that is an IANA zone, else `fallback`. */
export function contactZone(data: Record<string, unknown> | null | undefined, fallback: string): string {
  const tz = data?.timezone;
  return validZone(tz) ? tz : fallback;
}

interface WallClock {
  y: number;
  m: number;
  d: number;
  h: number;
  min: number;
  s: number;
}

function wallClock(at: number, tz: string): WallClock {
  const p: Record<string, number> = {};
  for (const part of format(tz).formatToParts(at)) if (part.type !== "literal") p[part.type] = Number(part.value);
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, min: p.minute!, s: p.second! };
}

/** The zone's offset from UTC at `at`, in ms (New York in winter: -5 h). */
function offsetAt(at: number, tz: string): number {
  const w = wallClock(at, tz);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s) - Math.floor(at / 1000) * 1000;
}

const parse = (hhmm: string) => ({ h: Number(hhmm.slice(0, 2)), min: Number(hhmm.slice(3, 5)) });
const minutesOf = (hhmm: string) => {
  const { h, min } = parse(hhmm);
  return h * 60 + min;
};

/**
 * The instant at which `tz` reads `hhmm` on the calendar day y-m-d. A time that day skips (the hour
 * a spring-forward removes) is taken as the same length after the gap's start (02:30 in New York on
 * its spring day is 03:30 EDT), so a recipient is never skipped; a time that happens twice (the
 * fall-back hour) is the first.
 */
export function zonedInstant(y: number, m: number, d: number, hhmm: string, tz: string): Date {
  const { h, min } = parse(hhmm);
  const naive = Date.UTC(y, m - 1, d, h, min);
  const half = 12 * 3_600_000;
  // offsets either side of any transition near that day (zones change at most once a day)
  const candidates = [naive - offsetAt(naive - half, tz), naive - offsetAt(naive + half, tz)].sort((a, b) => a - b);
  const exact = candidates.find((t) => {
    const w = wallClock(t, tz);
    return w.y === y && w.m === m && w.d === d && w.h === h && w.min === min;
  });
  return new Date(exact ?? candidates[1]!);
}

/** The next instant at or after `now` at which `tz` reads `hhmm`: today's, or tomorrow's once it is past. */
export function nextLocalTime(now: Date, hhmm: string, tz: string): Date {
  const w = wallClock(now.getTime(), tz);
  const today = zonedInstant(w.y, w.m, w.d, hhmm, tz);
  if (today.getTime() >= now.getTime()) return today;
  const next = new Date(Date.UTC(w.y, w.m - 1, w.d + 1));
  return zonedInstant(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), hhmm, tz);
}

/**
 * Quiet hours [from, to) in `tz`: null when `now` is outside the window (send now), else the instant
 * it ends (hold until then). `to` earlier than `from` wraps past midnight (21:00–08:00).
 */
export function quietUntil(now: Date, quiet: { from: string; to: string }, tz: string): Date | null {
  const w = wallClock(now.getTime(), tz);
  const minute = w.h * 60 + w.min;
  const from = minutesOf(quiet.from);
  const to = minutesOf(quiet.to);
  const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
  if (!inside) return null;
  return nextLocalTime(now, quiet.to, tz);
}
