import { Liquid, type Template } from "liquidjs";

/**
 * WEBHOOK urls and bodies are Liquid written through the API, so the engine is bounded like the
 * sending service's: `templates: {}` keeps {% include %} and {% render %} inside an empty in-memory
 * map (the default would read files of this service's working directory and send them to the URL),
 * and the limits keep one template from stalling the engine or eating its memory (a loop over a huge
 * range).
 */
const liquid = new Liquid({
  templates: {},
  ownPropertyOnly: true,
  strictFilters: false,
  strictVariables: false,
  parseLimit: 1_000_000,
  renderLimit: 2_000,
  memoryLimit: 64 * 1024 * 1024,
});

/** Parsed templates by source: a step's strings are the same on every run, parsing them is not. */
const parsed = new Map<string, Template[]>();
const MAX_PARSED = 1000;

function parse(source: string): Template[] {
  let templates = parsed.get(source);
  if (!templates) {
    templates = liquid.parse(source);
    if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
    parsed.set(source, templates);
  }
  return templates;
}

export async function renderText(template: string, scope: Record<string, unknown>): Promise<string> {
  if (!template.includes("{{") && !template.includes("{%")) return template;
  return liquid.render(parse(template), scope) as Promise<string>;
}

/** Renders every string of a JSON value (keys and structure stay), so rendered text can never break the JSON. */
export async function renderJson(value: unknown, scope: Record<string, unknown>): Promise<unknown> {
  if (typeof value === "string") return renderText(value, scope);
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderJson(v, scope)));
  if (value && typeof value === "object") {
    const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await renderJson(v, scope)] as const));
    return Object.fromEntries(entries);
  }
  return value;
}
