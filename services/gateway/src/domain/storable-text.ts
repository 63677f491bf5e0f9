import type { ErrorDetail } from "@mailroom/contracts";

/** U+0000 and unpaired UTF-16 surrogates: PostgreSQL can store neither (text rejects NUL, jsonb both). */
const UNSTORABLE = /\u0000|\p{Surrogate}/u;

/**
 * Every string (and object key) of a request that no service could store, as validation details.
 * Checked once at the edge, since every text field ends in PostgreSQL somewhere and would otherwise
 * fail there as a 500. Iterative, because bodies may nest thousands of levels deep.
 */
export function unstorableText(value: unknown, where: string | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const stack: Array<[unknown, string[]]> = [[value, where ? [where] : []]];
  while (stack.length && details.length < 20) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      if (UNSTORABLE.test(v)) details.push({ path: path.join("."), message: "must not contain NUL characters or unpaired surrogates" });
    } else if (v && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) details.push({ path: [...path, k.replace(UNSTORABLE, "?")].join("."), message: "keys must not contain NUL characters or unpaired surrogates" });
        stack.push([child, [...path, k]]);
      }
    }
  }
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
