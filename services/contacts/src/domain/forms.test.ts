import { describe, expect, it } from "vitest";
import { FORM_HIDDEN, FormFields, type FormField } from "@mailroom/contracts";
import { addressProblem, checkHuman, formTopics, readFields, renderToken, signRenderTime, submittedBody } from "./forms.js";
import { formPageHeaders, renderFormPage } from "./form-page.js";

const secret = "a-test-secret-of-enough-length";
const formId = "0190a8f0-0000-7000-8000-000000000001";
const opts = (now: number) => ({ secret, formId, now, minFillMs: 2000, maxAgeMs: 7 * 86_400_000 });
const FIELDS: FormField[] = [
  { key: "email", label: "Email", type: "email", required: true },
  { key: "name", label: "Name", type: "text", required: true },
  { key: "plan", label: "Plan", type: "select", required: false, options: ["free", "pro"] },
  { key: "terms", label: "I agree", type: "checkbox", required: true },
  { key: "news", label: "News", type: "checkbox", required: false },
];

describe("the signed render time", () => {
  const t0 = 1_700_000_000_000;
  const token = renderToken(secret, formId, t0);
  const hidden = { [FORM_HIDDEN.renderedAt]: token.renderedAt, [FORM_HIDDEN.signature]: token.signature };

  it("passes a page's own hidden fields after two seconds", () => {
    expect(checkHuman(hidden, opts(t0 + 2000))).toEqual({ ok: true });
  });
  it("takes a post under two seconds for a bot's", () => {
    expect(checkHuman(hidden, opts(t0 + 1999))).toEqual({ ok: false, kind: "too_fast" });
  });
  it("refuses a missing, forged, moved or foreign signature, and an old page", () => {
    expect(checkHuman({}, opts(t0 + 5000))).toEqual({ ok: false, kind: "token" });
    expect(checkHuman({ ...hidden, [FORM_HIDDEN.signature]: "x" + token.signature.slice(1) }, opts(t0 + 5000))).toEqual({ ok: false, kind: "token" });
    // an earlier time with the same signature (to look slower than it was)
    expect(checkHuman({ ...hidden, [FORM_HIDDEN.renderedAt]: String(t0 - 10_000) }, opts(t0 + 500))).toEqual({ ok: false, kind: "token" });
    expect(checkHuman(hidden, { ...opts(t0 + 5000), formId: "0190a8f0-0000-7000-8000-000000000002" })).toEqual({ ok: false, kind: "token" });
    expect(checkHuman(hidden, { ...opts(t0 + 5000), secret: "another-secret-of-enough-length" })).toEqual({ ok: false, kind: "token" });
    expect(checkHuman({ ...hidden, [FORM_HIDDEN.renderedAt]: "1e3" }, opts(t0 + 5000))).toEqual({ ok: false, kind: "token" });
    expect(checkHuman(hidden, opts(t0 + 8 * 86_400_000))).toEqual({ ok: false, kind: "token" });
  });
  it("is an HMAC of the form id and the time", () => {
    expect(signRenderTime(secret, formId, t0)).toBe(token.signature);
    expect(signRenderTime(secret, formId, t0 + 1)).not.toBe(token.signature);
  });
});

describe("the honeypot", () => {
  const token = renderToken(secret, formId, 0);
  const hidden = { [FORM_HIDDEN.renderedAt]: token.renderedAt, [FORM_HIDDEN.signature]: token.signature };
  it("left empty (or absent) is a person's", () => {
    expect(checkHuman({ ...hidden, [FORM_HIDDEN.honeypot]: "" }, opts(10_000)).ok).toBe(true);
    expect(checkHuman(hidden, opts(10_000)).ok).toBe(true);
  });
  it("filled in is a bot's", () => {
    expect(checkHuman({ ...hidden, [FORM_HIDDEN.honeypot]: "https://spam.example" }, opts(10_000))).toEqual({ ok: false, kind: "honeypot" });
  });
  it("is on the page, out of sight and out of the tab order", () => {
    const html = renderFormPage({ name: "N", fields: FIELDS, action: "https://m.example/f/1", ...token });
    expect(html).toMatch(new RegExp(`<div class="hp" aria-hidden="true">.*name="${FORM_HIDDEN.honeypot}" tabindex="-1"`));
    expect(html).not.toContain("<script");
  });
  it("shows a tenant's labels and options as text, never as markup", () => {
    const hostile = `"><script>alert(1)</script>`;
    const fields = FIELDS.map((f) => ({ ...f, label: hostile }));
    const html = renderFormPage({ name: hostile, fields, action: "https://m.example/f/1", ...token });
    expect(html).not.toContain("<script");
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
  });
});

describe("the fields of a submission", () => {
  it("gives the address, the contact data and the event's fields", () => {
    const r = readFields(FIELDS, { email: " ada@example.com ", name: "Ada", plan: "pro", terms: "on", extra: "ignored" });
    expect(r).toEqual({
      ok: true,
      values: {
        email: "ada@example.com",
        data: { name: "Ada", plan: "pro", terms: true, news: false },
        fields: { email: "ada@example.com", name: "Ada", plan: "pro", terms: true, news: false },
      },
    });
  });
  it("names every bad field by its key", () => {
    const r = readFields(FIELDS, { email: "not an address", name: "", plan: "enterprise", news: "maybe" });
    expect(r).toEqual({
      ok: false,
      details: [
        { path: "email", message: "must be an email address" },
        { path: "name", message: "is required" },
        { path: "plan", message: "must be one of the options" },
        { path: "terms", message: "must be ticked" },
        { path: "news", message: "must be a checkbox value" },
      ],
    });
  });
  it("takes JSON values as well as a form's strings", () => {
    const r = readFields(FIELDS, { email: "a@example.com", name: "A", terms: true, news: false });
    expect(r.ok && r.values.data).toEqual({ name: "A", terms: true, news: false });
    expect(readFields(FIELDS, { email: "a@example.com", name: 5, terms: true })).toEqual({ ok: false, details: [{ path: "name", message: "must be text" }] });
  });
  it("reads a form-encoded body by its first value of each name, and nothing else as a form", () => {
    expect(submittedBody("email=a%40b.c&name=A+B&name=C", "application/x-www-form-urlencoded; charset=UTF-8")).toEqual({ email: "a@b.c", name: "A B" });
    expect(submittedBody({ email: "a@b.c" }, "application/json")).toEqual({ email: "a@b.c" });
    expect(submittedBody("email=a", "text/plain")).toBeNull();
    expect(submittedBody([1], "application/json")).toBeNull();
  });
});

describe("a form's definition", () => {
  it("needs exactly one required email field, unique keys and options on selects only", () => {
    expect(FormFields.safeParse(FIELDS).success).toBe(true);
    expect(FormFields.safeParse([FIELDS[1]]).success).toBe(false);
    expect(FormFields.safeParse([{ ...FIELDS[0], required: false }]).success).toBe(false);
    expect(FormFields.safeParse([FIELDS[0], FIELDS[1], FIELDS[1]]).success).toBe(false);
    expect(FormFields.safeParse([FIELDS[0], { key: "plan", label: "Plan", type: "select" }]).success).toBe(false);
    expect(FormFields.safeParse([FIELDS[0], { key: "name", label: "Name", type: "text", options: ["a"] }]).success).toBe(false);
    expect(FormFields.safeParse([FIELDS[0], { key: "mr_sig", label: "x", type: "text" }]).success).toBe(false);
    expect(FormFields.safeParse([FIELDS[0], { key: "unsubscribeUrl", label: "x", type: "text" }]).success).toBe(false);
  });
});

describe("the topics a submission opts into", () => {
  it("all of the form's, except those the contact said no to", () => {
    expect(formTopics(["a", "b", "c"], undefined)).toEqual({ a: true, b: true, c: true });
    expect(formTopics(["a", "b", "c"], { a: false, b: true })).toEqual({ b: true, c: true });
  });
});

describe("the address check", () => {
  const fine = { isDisposable: false, isTypo: false, certainlyNoMail: false, suggestedEmail: null };
  it("refuses what does not parse, disposable domains, typos and domains that take no mail", () => {
    expect(addressProblem(null)).toBe("is not an email address");
    expect(addressProblem({ ...fine, isDisposable: true })).toBe("is a disposable address");
    expect(addressProblem({ ...fine, isTypo: true, suggestedEmail: "ada@gmail.com" })).toBe("looks like a typo of ada@gmail.com");
    expect(addressProblem({ ...fine, certainlyNoMail: true })).toBe("has no mail server");
  });
  it("does not hold a failed DNS lookup against the person", () => {
    expect(addressProblem(fine)).toBeNull();
  });
});

describe("the page's CSP", () => {
  it("loads nothing, and lets the form post only to its own origin and its redirect's", () => {
    const csp = formPageHeaders("https://m.example/f/1", "https://shop.example/thanks?x=1")["content-security-policy"];
    expect(csp).toBe("default-src 'none'; style-src 'unsafe-inline'; form-action https://m.example https://shop.example; base-uri 'none'; frame-ancestors *");
    expect(formPageHeaders("https://m.example/f/1", null)["content-security-policy"]).toContain("form-action https://m.example;");
  });
});
