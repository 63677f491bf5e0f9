import { Liquid, type Template } from "liquidjs";
import { BoundedMap, liquidBounds } from "@mailroom/kit";

/**
 * WEBHOOK urls and bodies are Liquid written through the API, so the engine has the same bounds as
 * the sending service's (kit `liquidBounds`): without them a `{% render "package.json" %}` read a
 * file of this service and sent it to the URL, and a loop over a huge range stalled the engine.
 */
const liquid = new Liquid({ ...liquidBounds(), ownPropertyOnly: true, strictFilters: false, strictVariables: false });

/** Parsed templates by source: a step's strings are the same on every run, parsing them is not. */
const parsed = new BoundedMap<string, Template[]>(1000);

function parse(source: string): Template[] {
  let templates = parsed.get(source);
  if (!templates) {
    templates = liquid.parse(source);
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
