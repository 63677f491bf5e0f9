import { describe, expect, it } from "vitest";
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
});
