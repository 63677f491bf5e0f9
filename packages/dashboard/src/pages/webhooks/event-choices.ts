import { SYSTEM_EVENT_NAMES } from "@mailroom/contracts";

/**
 * The event picker's choices (decisions.md §16): a box for `*`, one per family of system events
 * (`email.*`) and one per event; whatever pattern no box stands for (segment patterns, `contact.topic.*`)
 * is typed in the free field. The families come from the contracts' list, so a new system event
 * gets its box without a change here. Pure, so the round trip is unit-tested.
 */
export interface EventFamily {
  /** "email" */
  name: string;
  /** "email.*" */
  wildcard: string;
  events: readonly string[];
}

export const ALL_EVENTS = "*";

export const EVENT_FAMILIES: readonly EventFamily[] = (() => {
  const byName = new Map<string, string[]>();
  for (const event of SYSTEM_EVENT_NAMES) {
    const name = event.split(".")[0]!;
    byName.set(name, [...(byName.get(name) ?? []), event]);
  }
  return [...byName].map(([name, events]) => ({ name, wildcard: `${name}.*`, events }));
})();

const BOXES = new Set<string>([ALL_EVENTS, ...EVENT_FAMILIES.flatMap((f) => [f.wildcard, ...f.events])]);

/**
 * Whether `broad` matches every event `narrow` does: a pattern ending in its only `*` covers the
 * patterns that start like it (`email.*` covers `email.sent`, `*` covers everything).
 */
export function covers(broad: string, narrow: string): boolean {
  if (broad === narrow || !broad.endsWith("*")) return false;
  const prefix = broad.slice(0, -1);
  return !prefix.includes("*") && narrow.startsWith(prefix);
}

/** The chosen pattern that already covers `pattern` (its box shows ticked and disabled), if any. */
export function coveredBy(events: readonly string[], pattern: string): string | undefined {
  return events.find((e) => covers(e, pattern));
}

/** The patterns no box stands for: what the free field shows. */
export function freePatterns(events: readonly string[]): string[] {
  return events.filter((e) => !BOXES.has(e));
}

/** `events` with one box ticked or not; the free patterns stay. */
export function toggle(events: readonly string[], pattern: string, on: boolean): string[] {
  const rest = events.filter((e) => e !== pattern);
  return on ? [...rest, pattern] : rest;
}

/** `events` with the free field's patterns in place of the previous ones. */
export function withFree(events: readonly string[], free: readonly string[]): string[] {
  return [...events.filter((e) => BOXES.has(e)), ...free.map((p) => p.trim()).filter(Boolean)];
}

/**
 * What is saved: each pattern once, without those a broader chosen one covers. A box ticked before
 * its family's was stays in the form (unticking the family brings it back) but is not sent.
 */
export function normalize(events: readonly string[]): string[] {
  const unique = [...new Set(events)];
  return unique.filter((e) => !coveredBy(unique, e));
}
