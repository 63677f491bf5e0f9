import type { Filter, TimeUnit } from "@mailroom/contracts";

const UNIT_MS: Record<TimeUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/**
 * `value` `unit`s as whole milliseconds. Units have fixed lengths (a day is 24 hours, whatever the
 * calendar or DST says) and fractions are allowed (1.5 days), rounded to the millisecond so that
 * every cutoff the two evaluators compare against is an integer millisecond.
 */
export function durationMs(filter: Filter): number {
  return Math.round(Number(filter.value) * UNIT_MS[filter.unit ?? "days"]);
}

/** `now - value units`: `within` is `>= cutoff`, `olderThan` is `< cutoff`. */
export function windowStart(filter: Filter, now: number): number {
  return now - durationMs(filter);
}

/*
 * A data value is a date only when it is an ISO 8601 date-time in this strict form: a real calendar
 * date in years 1000-9999 (leap years checked by the pattern itself), `T`, hours:minutes:seconds
 * (RFC 3339, like the API's own timestamps) with up to 6 fraction digits, and `Z` or a `±hh:mm`
 * offset below 15 hours.
 * The same pattern runs in JavaScript and in PostgreSQL (`~`, which uses the same syntax for
 * everything written here), and every string it accepts is one PostgreSQL's `::timestamptz` parses
 * without error, exactly (microseconds at most, so no rounding), which is what lets the SQL cast
 * sit behind the pattern in a CASE. PostgreSQL 15 has no pg_input_is_valid to ask instead.
 */
const YEAR = "[1-9][0-9]{3}";
const LEAP_YEAR = "(?:[1-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00)";
const MONTH_DAY =
  "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))";
const TIME = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,6})?";
const OFFSET = "(?:Z|[+-](?:0[0-9]|1[0-4]):[0-5][0-9])";
export const ISO_DATE_TIME_PATTERN = `^(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)T${TIME}${OFFSET}$`;

const ISO_DATE_TIME = new RegExp(ISO_DATE_TIME_PATTERN);
const PARTS = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|([+-])(\d\d):(\d\d))$/;

/**
 * Milliseconds since the epoch of a strict ISO date-time (above), truncated to the millisecond, or
 * null for anything else. Truncation, not rounding: PostgreSQL keeps the microseconds, and since
 * every cutoff is a whole millisecond, `t >= cutoff` has the same answer for the exact and the
 * truncated instant.
 */
export function parseIsoDateTime(value: unknown): number | null {
  if (typeof value !== "string" || !ISO_DATE_TIME.test(value)) return null;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om] = PARTS.exec(value)!;
  const ms = Number((frac ?? "").padEnd(3, "0").slice(0, 3));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const offset = sign ? (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  return utc - offset;
}

/** A contact or event timestamp as facts carry it (Date or ISO string), truncated to the millisecond. */
export function instant(value: Date | string | number): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new TypeError(`not a timestamp: ${String(value)}`);
  return Math.floor(ms);
}
