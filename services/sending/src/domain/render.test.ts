import { describe, expect, it } from "vitest";
import { expandFallbacks, parseTemplate, renderTemplate } from "./render.js";

const render = (subject: string, body: string, vars: Record<string, unknown>) => renderTemplate(parseTemplate({ subject, body }), vars);

describe("templates", () => {
  it("rewrites ?? outside strings only", () => {
    expect(expandFallbacks('{{ name ?? "a ?? b" }} ??')).toBe('{{ name | default: "a ?? b" }} ??');
  });

  it("uses the fallback for missing or empty values and renders missing variables empty", async () => {
    const r = await render('Hi {{ name ?? "there" }}', "<p>{{ name ?? 'friend' }}|{{ missing }}|{{ a.b.c }}</p>", { name: "" });
    expect(r).toEqual({ subject: "Hi there", html: "<p>friend||</p>" });
  });

  it("escapes every body output unless raw, and never escapes the subject", async () => {
    const r = await render("{{ name }} & co", "<b>{{ name }}</b>{{ html | raw }}", { name: "<script>x</script>", html: "<i>ok</i>" });
    expect(r.subject).toBe("<script>x</script> & co");
    expect(r.html).toBe("<b>&lt;script&gt;x&lt;/script&gt;</b><i>ok</i>");
  });

  it("removes line breaks from rendered subjects", async () => {
    const r = await render("{{ a }}", "x", { a: "one\r\nBcc: evil@example.com\n" });
    expect(r.subject).toBe("one Bcc: evil@example.com");
  });

  it("supports tags and filters", async () => {
    const r = await render("{{ n | plus: 1 }}", "{% for i in items %}{{ i | upcase }}{% endfor %}{% if ok %}y{% endif %}", {
      n: 1,
      items: ["a", "b"],
      ok: true,
    });
    expect(r).toEqual({ subject: "2", html: "ABy" });
  });

  it("rejects syntax errors with the part that is wrong", () => {
    expect(() => parseTemplate({ subject: "ok", body: "{% if %}" })).toThrowError(/could not be parsed/);
  });

  it("cannot include files", async () => {
    await expect(render("x", '{% include "/etc/passwd" %}', {})).rejects.toThrow();
  });

  it("parses a source once and renders it for each recipient; pairs that concatenate alike stay apart", async () => {
    const a = parseTemplate({ subject: "Hi {{ n }}", body: "<p>{{ n }}</p>" });
    expect(parseTemplate({ subject: "Hi {{ n }}", body: "<p>{{ n }}</p>" })).toBe(a);
    expect(await renderTemplate(a, { n: 1 })).toEqual({ subject: "Hi 1", html: "<p>1</p>" });
    expect(await renderTemplate(a, { n: "<b>" })).toEqual({ subject: "Hi <b>", html: "<p>&lt;b&gt;</p>" });
    // the same characters split differently between subject and body are another template
    const left = parseTemplate({ subject: "ab", body: "c" });
    const right = parseTemplate({ subject: "a", body: "bc" });
    expect(await renderTemplate(left, {})).toEqual({ subject: "ab", html: "c" });
    expect(await renderTemplate(right, {})).toEqual({ subject: "a", html: "bc" });
    // a syntax error is not remembered as a template
    expect(() => parseTemplate({ subject: "ok", body: "{% if %}" })).toThrowError(/could not be parsed/);
    expect(() => parseTemplate({ subject: "ok", body: "{% if %}" })).toThrowError(/could not be parsed/);
  });
});
