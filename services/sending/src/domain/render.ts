import { Liquid, type Template as LiquidTemplate } from "liquidjs";
import { AppError, RENDER_LIMIT_REASON, TEMPLATE_INVALID_REASON, assertSourceSize, type ErrorDetail } from "@mailroom/contracts";
import { LIQUID_RENDER_LIMIT_MS, LiquidParseCache, isLiquidLimitError, liquidBounds, liquidSourceProblem, retryPastTimeLimit } from "@mailroom/kit";

// No file access and bounded work (kit `liquidBounds`): a template is written through the API.
const bodyEngine = new Liquid({ ...liquidBounds(), outputEscape: "escape", strictVariables: false, strictFilters: true });
const subjectEngine = new Liquid({ ...liquidBounds(), strictVariables: false, strictFilters: true });

/**
 * `{{ name ?? "there" }}` is shorthand for `{{ name | default: "there" }}`. Only `??` outside quoted
 * strings of an output tag is rewritten, so a literal "??" in text or in a string stays as it is.
 *
 * One pass over the source: each `{{` is matched with the first `}}` after it, as the lazy regex
 * this replaces did, but a `{{` with no `}}` after it ends the search instead of being looked for
 * again from every later `{{` (200 KB of `{{` held the event loop for seconds).
 */
export function expandFallbacks(source: string): string {
  if (!source.includes("??")) return source;
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    const open = source.indexOf("{{", from);
    if (open < 0) break;
    const close = source.indexOf("}}", open + 2);
    if (close < 0) break;
    parts.push(source.slice(from, open + 2), rewriteOutsideQuotes(source.slice(open + 2, close)), "}}");
    from = close + 2;
  }
  parts.push(source.slice(from));
  return parts.join("");
}

function rewriteOutsideQuotes(expr: string): string {
  if (!expr.includes("??")) return expr;
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
  /** The plain-text alternative (/v1/send `text`), when given. */
  text?: LiquidTemplate[];
}

/**
 * Parsed templates by source: a template, or the same inline subject and body, sent again and again
 * (the common transactional case) is parsed once. Liquid's parsed form is read-only while rendering.
 * Bounded by the sum of the sources (kit `LiquidParseCache`): a parsed template weighs up to about
 * 150 times its source, so 512 K characters of sources stay well inside the service's heap.
 */
const parsedCache = new LiquidParseCache<ParsedTemplate>(512 * 1024, 64 * 1024);

/**
 * Parses both parts once, before any side effect: a syntax error is the caller's 400, a body over
 * 1 MB its 413 (contracts `assertSourceSize`).
 */
export function parseTemplate(parts: { subject: string; body: string; text?: string }): ParsedTemplate {
  assertSourceSize(parts);
  // length-prefixed: no two sets of parts share a key
  const key =
    parts.text === undefined
      ? `${parts.subject.length}:${parts.subject}${parts.body}`
      : `${parts.subject.length}:${parts.text.length}:${parts.subject}${parts.text}${parts.body}`;
  const cached = parsedCache.get(key);
  if (cached) return cached;
  const parsed = parseUncached(parts);
  parsedCache.set(key, parsed);
  return parsed;
}

/** A liquidjs message names the source around the error: its first line, kept short, is enough. */
const firstLine = (err: unknown) => (String((err as Error)?.message ?? err).split("\n")[0] ?? "").slice(0, 300);

function parseUncached(parts: { subject: string; body: string; text?: string }): ParsedTemplate {
  const details: ErrorDetail[] = [];
  const parse = (engine: Liquid, source: string, path: string) => {
    const problem = liquidSourceProblem(source);
    if (problem) {
      details.push({ path, message: problem });
      return [];
    }
    try {
      return engine.parse(expandFallbacks(source));
    } catch (err) {
      details.push({ path, message: `template syntax error: ${firstLine(err)}` });
      return [];
    }
  };
  const parsed: ParsedTemplate = { subject: parse(subjectEngine, parts.subject, "subject"), body: parse(bodyEngine, parts.body, "body") };
  // plain text: outputs are not HTML-escaped (the subject's engine), line breaks are kept
  if (parts.text !== undefined) parsed.text = parse(subjectEngine, parts.text, "text");
  if (details.length) throw AppError.validation("The template could not be parsed", details, TEMPLATE_INVALID_REASON);
  return parsed;
}

export interface Rendered {
  subject: string;
  html: string;
  /** The plain-text alternative, when the template has one. */
  text?: string;
}

/**
 * A rendered subject on one line: each run of white space holding a line break becomes one space,
 * cut at 998 characters. Run by run, in one pass: the expression this replaces backtracked over
 * every run of spaces without a line break (40,000 spaces from a variable took two seconds).
 */
function oneLine(subject: string): string {
  const joined = /[\r\n]/.test(subject) ? subject.replace(/\s+/g, (run) => (/[\r\n]/.test(run) ? " " : run)) : subject;
  return joined.trim().slice(0, 998);
}

/**
 * Subject: plain text (no escaping; line breaks become one space, so no header can be injected).
 * Body: every output HTML-escaped unless it goes through `raw`. Missing variables render empty.
 * Both together get LIQUID_RENDER_LIMIT_MS (give or take the first millisecond): the body has what
 * the subject left. Past the time bound they are tried once more (kit `retryPastTimeLimit`).
 */
export async function renderTemplate(parsed: ParsedTemplate, vars: Record<string, unknown>): Promise<Rendered> {
  try {
    return await retryPastTimeLimit(() => renderParts(parsed, vars));
  } catch (err) {
    if (isLiquidLimitError(err)) {
      const bound = /memory/.test(firstLine(err)) ? "its memory bound" : `${LIQUID_RENDER_LIMIT_MS} ms`;
      throw AppError.validation(
        "The template could not be rendered",
        [{ path: "template", message: `rendering took more than ${bound} (${firstLine(err)})` }],
        RENDER_LIMIT_REASON,
      );
    }
    throw AppError.validation("The template could not be rendered", [{ path: "template", message: firstLine(err) }]);
  }
}

async function renderParts(parsed: ParsedTemplate, vars: Record<string, unknown>): Promise<Rendered> {
  const started = performance.now();
  const subject = (await subjectEngine.render(parsed.subject, vars)) as string;
  const spent = performance.now() - started;
  // the usual subject takes microseconds: the body then keeps its engine's own bound (options
  // given per render cost about as much as the render of a short body)
  const html = (await (spent < 1
    ? bodyEngine.render(parsed.body, vars)
    : bodyEngine.render(parsed.body, vars, { renderLimit: Math.max(0, LIQUID_RENDER_LIMIT_MS - spent) }))) as string;
  if (!parsed.text) return { subject: oneLine(subject), html };
  const text = (await subjectEngine.render(parsed.text, vars, { renderLimit: Math.max(0, LIQUID_RENDER_LIMIT_MS - (performance.now() - started)) })) as string;
  return { subject: oneLine(subject), html, text };
}

/**
 * A template that runs past its bounds with no data at all does so for every recipient, so it is
 * refused when saved (400 with `reason: "render_limit"`). Other render errors depend on the data a
 * send brings (a filter given nothing, say) and are left to the send.
 */
export async function assertRendersInBounds(parsed: ParsedTemplate): Promise<void> {
  try {
    await renderTemplate(parsed, {});
  } catch (err) {
    if (err instanceof AppError && err.reason === RENDER_LIMIT_REASON) throw err;
  }
}
