import { Liquid, type Template } from "liquidjs";
import { LIQUID_RENDER_LIMIT_MS, LiquidParseCache, liquidBounds, liquidSourceProblem, retryPastTimeLimit } from "@mailroom/kit";

/**
 * WEBHOOK urls and bodies are Liquid written through the API, so the engine has the same bounds as
 * the sending service's (kit `liquidBounds`): without them a `{% render "package.json" %}` read a
 * file of this service and sent it to the URL, and a loop over a huge range stalled the engine.
 */
const liquid = new Liquid({ ...liquidBounds(), ownPropertyOnly: true, strictFilters: false, strictVariables: false });

/**
 * Parsed templates by source: a step's strings are the same on every run, parsing them is not.
 * Bounded by the sum of the sources' lengths (a count let a thousand long strings, each parsed into
 * objects many times its size, fill the heap); 256 K characters of sources is thousands of step
 * strings, and at most a few tens of megabytes parsed.
 */
const parsed = new LiquidParseCache<Template[]>(256 * 1024, 64 * 1024);

function parse(source: string): Template[] {
  let templates = parsed.get(source);
  if (!templates) {
    const problem = liquidSourceProblem(source);
    if (problem) throw new Error(`template ${problem}`);
    templates = liquid.parse(source);
    parsed.set(source, templates);
  }
  return templates;
}

/**
 * Renders one string within LIQUID_RENDER_LIMIT_MS; past it, once more after a turn of the event
 * loop (kit `retryPastTimeLimit`: the bound is wall-clock time).
 */
export function renderText(template: string, scope: Record<string, unknown>): Promise<string> {
  return retryPastTimeLimit(() => renderString(template, scope, performance.now() + LIQUID_RENDER_LIMIT_MS));
}

/**
 * Renders every string of a JSON value (keys and structure stay), so rendered text can never break
 * the JSON. All the strings share one time bound: renders never yield, so a body of many strings
 * would otherwise hold the event loop for the bound times their number.
 */
export function renderJson(value: unknown, scope: Record<string, unknown>): Promise<unknown> {
  return retryPastTimeLimit(() => renderValue(value, scope, performance.now() + LIQUID_RENDER_LIMIT_MS));
}

async function renderString(template: string, scope: Record<string, unknown>, deadline: number): Promise<string> {
  if (!template.includes("{{") && !template.includes("{%")) return template;
  const renderLimit = Math.max(0, deadline - performance.now());
  return liquid.render(parse(template), scope, { renderLimit }) as Promise<string>;
}

async function renderValue(value: unknown, scope: Record<string, unknown>, deadline: number): Promise<unknown> {
  if (typeof value === "string") return renderString(value, scope, deadline);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) out.push(await renderValue(v, scope, deadline));
    return out;
  }
  if (value && typeof value === "object") {
    const entries: Array<[string, unknown]> = [];
    for (const [k, v] of Object.entries(value)) entries.push([k, await renderValue(v, scope, deadline)]);
    return Object.fromEntries(entries); // defines "__proto__" as a key, as the JSON had it
  }
  return value;
}
