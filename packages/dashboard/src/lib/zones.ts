/**
 * Wall-clock times in a chosen IANA time zone, for scheduling: the API stores UTC instants, a person
 * picks "10:00 in Europe/Paris". Built on Intl only (no date library in the bundle).
 */

/** The browser's own zone, the picker's default. */
export const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Every zone the browser knows (falls back to the local one and UTC), and `current` first when
 * given: the browser lists canonical names only, and a zone the API took under another of its names
 * (America/Argentina/ComodRivadavia) would otherwise show as an empty picker.
 */
export function timeZones(current?: string): string[] {
  const all = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...new Set([...(current ? [current] : []), localZone(), "UTC", ...all])];
}

const parts = (at: number, zone: string) => {
  const f = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  return { y: +p.year!, mo: +p.month!, d: +p.day!, h: +p.hour!, mi: +p.minute!, s: +p.second! };
};

/** How far `zone` is ahead of UTC at the instant `at`, in ms. */
function offsetAt(at: number, zone: string): number {
  const p = parts(at, zone);
  return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - Math.floor(at / 1000) * 1000;
}

/**
 * `2026-03-29T10:30` or `…T10:30:15` (a datetime-local value) read in `zone` → the UTC instant, ISO 8601. A time
 * skipped by a DST change moves forward by the change, as clocks do; null for text that is no time.
 */
export function zonedToUtc(local: string, zone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return null;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  // The offset at the guess, then at the answer: right on both sides of a DST change.
  let at = wall - offsetAt(wall, zone);
  at = wall - offsetAt(at, zone);
  return new Date(at).toISOString();
}

/** The UTC instant as a datetime-local value in `zone` (`2026-03-29T10:30`). */
export function utcToZoned(iso: string, zone: string): string {
  const p = parts(Date.parse(iso), zone);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${p.y}-${two(p.mo)}-${two(p.d)}T${two(p.h)}:${two(p.mi)}`;
}

/** The instant for a person, in `zone`, naming the zone ("Nov 26, 2026, 10:30 (Europe/Paris)"). */
export function formatInZone(iso: string, zone: string): string {
  return `${new Date(iso).toLocaleString(undefined, { timeZone: zone, dateStyle: "medium", timeStyle: "short" })} (${zone})`;
}
