import { z } from "zod";
import { AppError, type ErrorDetail } from "./errors.js";

/**
 * Liquid source written through the API (template and campaign bodies, /v1/send and enqueue bodies)
 * is bounded before anything parses it (decisions.md §12): at most 1 MB of UTF-8, and at most
 * MAX_LIQUID_MARKUP tags and outputs. The second bound is what keeps parsing short: liquidjs spends
 * time per tag (and, past about 15,000 tokens, time per tag times the tags left, because it takes
 * tokens off the front of one array), so a megabyte of `{{a}}` took a minute to parse.
 */
export const MAX_LIQUID_SOURCE_BYTES = 1024 * 1024;
export const MAX_LIQUID_MARKUP = 5000;

/** `reason` of the 400 for Liquid source that does not parse (or has too many tags). */
export const TEMPLATE_INVALID_REASON = "template_invalid";
/** `reason` of the 400 for a render that ran past its time or memory bound. */
export const RENDER_LIMIT_REASON = "render_limit";

/** UTF-8 length of a string without encoding it (a lone surrogate counts as U+FFFD: 3 bytes). */
export function utf8Length(s: string): number {
  let bytes = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 2 code units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c;

/**
 * An upper bound on the tokens liquidjs makes of `source` besides text: each `{{` and `{%`, plus
 * each line of a `{% liquid %}` tag (every line there is a tag of its own). One pass, no regexes.
 */
export function liquidMarkupCount(source: string): number {
  let count = 0;
  let i = source.indexOf("{");
  while (i >= 0 && i + 1 < source.length) {
    const next = source.charCodeAt(i + 1);
    if (next !== 0x7b && next !== 0x25) {
      i = source.indexOf("{", i + 1);
      continue;
    }
    count++;
    i += 2;
    if (next === 0x25) i = skipLiquidTag(source, i, () => count++);
    i = source.indexOf("{", i);
  }
  return count;
}

/** After `{%`: when the tag is `liquid`, counts its lines and answers the index after it. */
function skipLiquidTag(source: string, from: number, line: () => void): number {
  let i = from;
  while (i < source.length && (source.charCodeAt(i) === 0x2d || isSpace(source.charCodeAt(i)))) i++;
  if (!source.startsWith("liquid", i)) return from;
  const after = source.charCodeAt(i + 6);
  if (!(isSpace(after) || after === 0x2d || after === 0x25)) return from;
  const end = source.indexOf("%}", i);
  const stop = end < 0 ? source.length : end;
  for (let nl = source.indexOf("\n", i); nl >= 0 && nl < stop; nl = source.indexOf("\n", nl + 1)) line();
  return stop;
}

/** Whether `s` is over `maxBytes` of UTF-8; counted only when its length leaves the answer open. */
const oversized = (s: string, maxBytes: number) => s.length > maxBytes || (s.length * 3 > maxBytes && utf8Length(s) > maxBytes);

/**
 * Liquid source: non-empty, at most MAX_LIQUID_MARKUP tags and outputs (400 VALIDATION_ERROR, like
 * every field rule). Its size is the owning service's check (`assertSourceSize`, 413), so a source
 * over both bounds gets the 413 and is not counted through.
 */
export const LiquidSource = () =>
  z
    .string()
    .min(1)
    .superRefine((s, ctx) => {
      if (!oversized(s, MAX_LIQUID_SOURCE_BYTES) && liquidMarkupCount(s) > MAX_LIQUID_MARKUP) {
        ctx.addIssue({ code: "custom", message: `must have at most ${MAX_LIQUID_MARKUP} Liquid tags and outputs` });
      }
    })
    .meta({ description: `Liquid; at most ${MAX_LIQUID_SOURCE_BYTES} bytes of UTF-8 (413 beyond) and ${MAX_LIQUID_MARKUP} tags and outputs` });

/**
 * 413 PAYLOAD_TOO_LARGE, with `details` naming each field, for Liquid source over
 * MAX_LIQUID_SOURCE_BYTES: a body over its limit is reported as attachments and whole messages over
 * theirs are (decisions.md §2), where short fields (a subject, a name) over theirs are a 400.
 */
export function assertSourceSize(fields: Record<string, string | null | undefined>): void {
  const details: ErrorDetail[] = [];
  for (const [path, value] of Object.entries(fields)) {
    if (typeof value === "string" && oversized(value, MAX_LIQUID_SOURCE_BYTES)) {
      details.push({ path, message: `must be at most ${MAX_LIQUID_SOURCE_BYTES} bytes of UTF-8` });
    }
  }
  if (details.length) throw new AppError("PAYLOAD_TOO_LARGE", `Template source is limited to ${MAX_LIQUID_SOURCE_BYTES} bytes (1 MB)`, { details });
}
