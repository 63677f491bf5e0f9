import type { ErrorDetail } from "@mailroom/contracts";

/** U+0000 and unpaired UTF-16 surrogates: PostgreSQL can store neither (text rejects NUL, jsonb both). */
const UNSTORABLE = /\u0000|\p{Surrogate}/u;

/** A container on the walk, and the way back to its path, built only when a detail needs it. */
interface Frame {
  value: object;
  key: string | undefined;
  parent: Frame | undefined;
}

function pathOf(frame: Frame | undefined, last?: string): string {
  const parts = last === undefined ? [] : [last];
  for (let f = frame; f; f = f.parent) if (f.key !== undefined) parts.push(f.key);
  return parts.reverse().join(".");
}

const TEXT = "must not contain NUL characters or unpaired surrogates";
const KEYS = "keys must not contain NUL characters or unpaired surrogates";
const MAX_DETAILS = 20;

/**
 * Adds to `details` every string (and object key) of a request that no service could store. Checked
 * once at the edge, since every text field ends in PostgreSQL somewhere and would otherwise fail
 * there as a 500. Iterative, because bodies may nest thousands of levels deep; it runs on every
 * request, so a clean value costs no allocation beyond the walk itself.
 */
export function unstorableText(value: unknown, where: string | undefined, details: ErrorDetail[] = []): ErrorDetail[] {
  if (typeof value === "string") {
    if (UNSTORABLE.test(value)) details.push({ path: where ?? "", message: TEXT });
    return details;
  }
  if (!value || typeof value !== "object") return details;
  const stack: Frame[] = [{ value, key: where, parent: undefined }];
  while (stack.length && details.length < MAX_DETAILS) {
    const frame = stack.pop()!;
    const obj = frame.value as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      if (details.length >= MAX_DETAILS) break; // an object of a million bad strings gets 20 details
      if (UNSTORABLE.test(k)) details.push({ path: pathOf(frame, k.replace(UNSTORABLE, "?")), message: KEYS });
      const child = obj[k];
      if (typeof child === "string") {
        if (UNSTORABLE.test(child)) details.push({ path: pathOf(frame, k), message: TEXT });
      } else if (child && typeof child === "object") {
        stack.push({ value: child, key: k, parent: frame });
      }
    }
  }
  if (details.length > MAX_DETAILS) details.length = MAX_DETAILS; // a bad key with a bad value adds two
  return details;
}

/** Deeper than any Mailroom document (filters, contact data) needs, far below the validators' stack limit. */
export const MAX_NESTING = 64;

/** Whether `value` nests objects and arrays deeper than `max` (iterative: the input may be very deep). */
export function nestsDeeperThan(value: unknown, max = MAX_NESTING): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== "object") continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
