import { Liquid } from "liquidjs";

const liquid = new Liquid({ ownPropertyOnly: true, strictFilters: false, strictVariables: false });

export const renderText = (template: string, scope: Record<string, unknown>): Promise<string> =>
  template.includes("{{") || template.includes("{%") ? liquid.parseAndRender(template, scope) : Promise.resolve(template);

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
