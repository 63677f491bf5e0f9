import { Liquid, type Template as LiquidTemplate } from "liquidjs";
import { AppError, type ErrorDetail } from "@mailroom/contracts";
import { BoundedMap, liquidBounds } from "@mailroom/kit";

// No file access and bounded work (kit `liquidBounds`): a template is written through the API.
const bodyEngine = new Liquid({ ...liquidBounds(), outputEscape: "escape", strictVariables: false, strictFilters: true });
const subjectEngine = new Liquid({ ...liquidBounds(), strictVariables: false, strictFilters: true });

/**
 * `{{ name ?? "there" }}` is shorthand for `{{ name | default: "there" }}`. Only `??` outside quoted
 * strings of an output tag is rewritten, so a literal "??" in text or in a string stays as it is.
 */
export function expandFallbacks(source: string): string {
  return source.replace(/\{\{([\s\S]*?)\}\}/g, (_m, inner: string) => `{{${rewriteOutsideQuotes(inner)}}}`);
}

function rewriteOutsideQuotes(expr: string): string {
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote) {
      if (c === quote) quote = null;
      out += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      out += c;
    } else if (c === "?" && expr[i + 1] === "?") {
      out += "| default:";
      i++;
    } else out += c;
  }
  return out;
}

export interface ParsedTemplate {
  subject: LiquidTemplate[];
  body: LiquidTemplate[];
}

/**
 * Parsed templates by source: a template, or the same inline subject and body, sent again and again
 * (the common transactional case) is parsed once. Liquid's parsed form is read-only while rendering.
 * Small sources only, so the cache stays a few megabytes at most.
 */
const parsedCache = new BoundedMap<string, ParsedTemplate>(512);
const CACHED_SOURCE_CHARS = 16 * 1024;

/** Parses both parts once, before any side effect: a syntax error is the caller's 400. */
export function parseTemplate(parts: { subject: string; body: string }): ParsedTemplate {
  const cacheable = parts.subject.length + parts.body.length <= CACHED_SOURCE_CHARS;
  const key = cacheable ? `${parts.subject.length}:${parts.subject}${parts.body}` : ""; // length-prefixed: no two pairs share a key
  const cached = cacheable ? parsedCache.get(key) : undefined;
  if (cached) return cached;
  const parsed = parseUncached(parts);
  if (cacheable) parsedCache.set(key, parsed);
  return parsed;
}

function parseUncached(parts: { subject: string; body: string }): ParsedTemplate {
  const details: ErrorDetail[] = [];
  const parse = (engine: Liquid, source: string, path: string) => {
    try {
      return engine.parse(expandFallbacks(source));
    } catch (err) {
      details.push({ path, message: `template syntax error: ${(err as Error).message.split("\n")[0]}` });
      return [];
    }
  };
  const parsed = { subject: parse(subjectEngine, parts.subject, "subject"), body: parse(bodyEngine, parts.body, "body") };
  if (details.length) throw AppError.validation("The template could not be parsed", details);
  return parsed;
}

export interface Rendered {
  subject: string;
  html: string;
}

/**
 * Subject: plain text (no escaping; line breaks become one space, so no header can be injected).
 * Body: every output HTML-escaped unless it goes through `raw`. Missing variables render empty.
 */
export async function renderTemplate(parsed: ParsedTemplate, vars: Record<string, unknown>): Promise<Rendered> {
  try {
    const subject = (await subjectEngine.render(parsed.subject, vars)) as string;
    const html = (await bodyEngine.render(parsed.body, vars)) as string;
    return { subject: subject.replace(/\s*[\r\n]+\s*/g, " ").trim().slice(0, 998), html };
  } catch (err) {
    throw AppError.validation("The template could not be rendered", [{ path: "template", message: (err as Error).message.split("\n")[0] ?? "" }]);
  }
}
