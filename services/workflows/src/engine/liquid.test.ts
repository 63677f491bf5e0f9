import { describe, expect, it } from "vitest";
import { LIQUID_RENDER_LIMIT_MS } from "@mailroom/kit";
import { renderJson, renderText } from "./liquid.js";

describe("workflow Liquid", () => {
  it("renders outputs and tags, and the same source again from its parsed form", async () => {
    expect(await renderText("Hi {{ contact.email }}", { contact: { email: "a@b.co" } })).toBe("Hi a@b.co");
    expect(await renderText("Hi {{ contact.email }}", { contact: { email: "c@d.co" } })).toBe("Hi c@d.co");
    expect(await renderText("{% if plan == 'pro' %}yes{% else %}no{% endif %}", { plan: "pro" })).toBe("yes");
    expect(await renderText("no tags at all", {})).toBe("no tags at all");
    expect(await renderJson({ a: ["{{ n }}", 2], b: { c: "{{ n }}!" } }, { n: 7 })).toEqual({ a: ["7", 2], b: { c: "7!" } });
  });

  it("never reads a file of the service: include and render find nothing", async () => {
    await expect(renderText('{% render "package.json" %}', {})).rejects.toThrow();
    await expect(renderText('{% include "package.json" %}', {})).rejects.toThrow();
    await expect(renderText('{% include "/etc/hostname" %}', {})).rejects.toThrow();
  });

  it("stops a template that would run away instead of stalling the engine", async () => {
    const started = Date.now();
    await expect(renderText("{% for i in (1..100000000) %}x{% endfor %}", {})).rejects.toThrow(/limit/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("reports a syntax error as an error, and renders an inherited property as nothing", async () => {
    await expect(renderText("{{ unclosed", {})).rejects.toThrow();
    expect(await renderText("{{ x.constructor }}", { x: {} })).toBe("");
  });

  it("gives all the strings of one body one time bound, not one each", async () => {
    const bomb = "{% for i in (1..1000000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}";
    let started = performance.now();
    await expect(renderJson({ a: [bomb, bomb, bomb, bomb, bomb, bomb, bomb, bomb] }, {})).rejects.toThrow(/limit/i);
    // the bound, and once more (kit retryPastTimeLimit), not eight times over
    expect(performance.now() - started).toBeLessThan(2 * LIQUID_RENDER_LIMIT_MS + 600);

    // strings that each render well within the bound, but not all of them together
    // Small enough to stay far within the bound even on a loaded machine; `one` is the mean of five
    // after a first render (its parse) untimed, and only sizes the time check. The count does not
    // hang on it: 10,000 renders of a 2,000-step loop take far longer than the bound on any machine,
    // where a count made from a `one` measured during a load spike could all fit within it.
    const loop = "{% for i in (1..2000) %}x{% endfor %}";
    await renderText(loop, {});
    started = performance.now();
    for (let i = 0; i < 5; i++) await renderText(loop, {});
    const one = Math.max(0.05, (performance.now() - started) / 5);
    const many = Array.from({ length: 10_000 }, () => loop);
    started = performance.now();
    await expect(renderJson(many, {})).rejects.toThrow(/limit/i);
    expect(performance.now() - started).toBeLessThan(2 * (LIQUID_RENDER_LIMIT_MS + one) + 600);
  });

  it("refuses a source with more tags than a parse may take, at once", async () => {
    const started = performance.now();
    await expect(renderText("{{ a }}".repeat(5001), {})).rejects.toThrow(/more than 5000 Liquid tags/);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("keeps a __proto__ key of a body as a key", async () => {
    const body = JSON.parse('{"__proto__": {"x": "{{ n }}"}}');
    const out = (await renderJson(body, { n: 1 })) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
