import { describe, expect, it } from "vitest";
import { AppError } from "@mailroom/contracts";
import { assertRendersInBounds, expandFallbacks, parseTemplate, renderTemplate } from "./render.js";

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

  it("renders a plain-text alternative unescaped with its line breaks, and caches it apart from the HTML alone", async () => {
    const withText = parseTemplate({ subject: "Hi", body: "<p>{{ n }}</p>", text: "Hi {{ n }}\n{% raw %}{{ kept }}{% endraw %}" });
    expect(await renderTemplate(withText, { n: "<b>" })).toEqual({ subject: "Hi", html: "<p>&lt;b&gt;</p>", text: "Hi <b>\n{{ kept }}" });
    expect(parseTemplate({ subject: "Hi", body: "<p>{{ n }}</p>" })).not.toBe(withText);
    expect(() => parseTemplate({ subject: "ok", body: "x", text: "{% if %}" })).toThrowError(/could not be parsed/);
  });

  it("rewrites ?? in every output tag and stops at a {{ that has no }} after it", () => {
    expect(expandFallbacks('{{ a ?? 1 }}{{ b ?? "x" }} {{ c ?? 2')).toBe('{{ a | default: 1 }}{{ b | default: "x" }} {{ c ?? 2');
    expect(expandFallbacks("{{ a }} ?? {{ }}")).toBe("{{ a }} ?? {{ }}");
  });
});

/** The time `work` takes, in milliseconds. */
async function timed(work: () => unknown): Promise<number> {
  const started = performance.now();
  try {
    await work();
  } catch {
    // the caller checks the outcome separately; here only the time counts
  }
  return performance.now() - started;
}

describe("templates written to hurt", () => {
  it("expands ?? over 200 KB of {{ in linear time", async () => {
    const source = `${"{{".repeat(100_000)}??`;
    let out = "";
    expect(await timed(() => (out = expandFallbacks(source)))).toBeLessThan(200);
    expect(out).toBe(source);
    const spaced = `${"{{ a ?? b ".repeat(20_000)}}}`; // one output of 200 KB, then nothing
    expect(await timed(() => (out = expandFallbacks(spaced)))).toBeLessThan(200);
    expect(out.startsWith("{{ a | default: b {{ a | default: b ")).toBe(true);
  });

  it("refuses 200 KB of {{ at once, and more tags than a parse may take", async () => {
    expect(await timed(() => parseTemplate({ subject: "s", body: "{{".repeat(100_000) }))).toBeLessThan(200);
    expect(() => parseTemplate({ subject: "s", body: "{{".repeat(100_000) })).toThrowError(/could not be parsed/);
    const many = "{{ a }}".repeat(5001);
    expect(await timed(() => parseTemplate({ subject: "s", body: many }))).toBeLessThan(200);
    try {
      parseTemplate({ subject: "s", body: many });
      expect.unreachable();
    } catch (err) {
      expect((err as AppError).details).toEqual([{ path: "body", message: "has more than 5000 Liquid tags and outputs" }]);
    }
    // up to the bound, a parse is short
    expect(await timed(() => parseTemplate({ subject: "s", body: `${"x{{ a }}".repeat(2500)}${"{% if a %}{% endif %}".repeat(1250)}` }))).toBeLessThan(500);
  });

  it("keeps a syntax error's message short", () => {
    try {
      parseTemplate({ subject: "s", body: `{{ '${"x".repeat(100_000)}` });
      expect.unreachable();
    } catch (err) {
      expect((err as AppError).details![0]!.message.length).toBeLessThanOrEqual(330);
    }
  });

  it("stops a render past its time bound with reason render_limit", async () => {
    const parsed = parseTemplate({ subject: "s", body: "{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}" });
    let error: unknown;
    const ms = await timed(async () => {
      try {
        await renderTemplate(parsed, {});
      } catch (err) {
        error = err;
        throw err;
      }
    });
    expect(ms).toBeLessThan(900); // the 150 ms bound, tried twice (kit retryPastTimeLimit)
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", reason: "render_limit", message: "The template could not be rendered" });
    await expect(assertRendersInBounds(parsed)).rejects.toMatchObject({ reason: "render_limit" });
  });

  it("stops a render past its memory bound before the heap suffers", async () => {
    for (const body of ["{% assign r = (1..30000000) %}{{ r | size }}", "{% assign s = 'ab' %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s }}"]) {
      const parsed = parseTemplate({ subject: "s", body });
      expect(await timed(() => renderTemplate(parsed, {}))).toBeLessThan(300);
      await expect(renderTemplate(parsed, {})).rejects.toMatchObject({ reason: "render_limit", details: [{ message: expect.stringMatching(/memory/) }] });
    }
  });

  it("leaves data-dependent failures to the send", async () => {
    await expect(assertRendersInBounds(parseTemplate({ subject: "s", body: "{% for i in (1..n) %}.{% endfor %}" }))).resolves.toBeUndefined();
  });

  it("puts a subject of long space runs on one line in linear time", async () => {
    const parsed = parseTemplate({ subject: "{{ a }}", body: "x" });
    let subject = "";
    const a = `${" ".repeat(200_000)}x\r\n \n y${" ".repeat(200_000)}`;
    expect(await timed(async () => (subject = (await renderTemplate(parsed, { a })).subject))).toBeLessThan(200);
    expect(subject).toBe("x y");
  });
});
