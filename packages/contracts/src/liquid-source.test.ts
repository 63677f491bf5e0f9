import { describe, expect, it } from "vitest";
import {
  AppError,
  CreateCampaignRequest,
  CreateTemplateRequest,
  EnqueueBatchRpcRequest,
  LiquidSource,
  SendEmailRequest,
  UpdateTemplateRequest,
  assertSourceSize,
  liquidMarkupCount,
  utf8Length,
  zodDetails,
} from "./index.js";

const MB = 1024 * 1024;

/** `details` of the Error object for a body the schema refuses, or [] when it accepts it. */
function details(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, input: unknown) {
  const r = schema.safeParse(input);
  return r.success ? [] : zodDetails(r.error as never);
}

describe("Liquid source bounds", () => {
  it("counts UTF-8 bytes without encoding", () => {
    for (const s of ["", "abc", "é", "€", "😀", "a😀é€", "\ud800x", "x\udc00"]) expect(utf8Length(s)).toBe(Buffer.byteLength(s));
  });

  it("counts each {{ and {%, and each line of a {% liquid %} tag", () => {
    expect(liquidMarkupCount("no tags { } %}")).toBe(0);
    expect(liquidMarkupCount("{{ a }}{% if b %}x{% endif %}{")).toBe(3);
    expect(liquidMarkupCount("{%- liquid\n echo a\n echo b\n-%}{{ c }}")).toBe(5);
    expect(liquidMarkupCount("{{".repeat(100_000))).toBe(100_000);
    expect(liquidMarkupCount("{% liquidx\n\n %}")).toBe(1);
  });

  it("takes 1 MB of UTF-8 and no more, counted in bytes: 413 naming each field beyond", () => {
    const refused = (fields: Record<string, string>) => {
      try {
        assertSourceSize(fields);
        return null;
      } catch (err) {
        return err as AppError;
      }
    };
    expect(refused({ body: "a".repeat(MB), subject: "s" })).toBeNull();
    const err = refused({ body: "a".repeat(MB + 1), subject: "s" });
    expect(err).toBeInstanceOf(AppError);
    expect(err!.status).toBe(413);
    expect(err!.toWire()).toMatchObject({ error: "PAYLOAD_TOO_LARGE", details: [{ path: "body", message: `must be at most ${MB} bytes of UTF-8` }] });
    // 2-byte characters: half as many fit
    expect(refused({ body: "é".repeat(MB / 2) })).toBeNull();
    expect(refused({ body: `${"é".repeat(MB / 2)}x` })?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(refused({ body: "😀".repeat(MB / 4 + 1) })?.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("takes at most 5000 tags and outputs (400 naming the field), and no empty source", () => {
    expect(LiquidSource().safeParse("{{ a }}".repeat(5000)).success).toBe(true);
    expect(details(LiquidSource(), "{{ a }}".repeat(5001))).toEqual([{ path: "", message: "must have at most 5000 Liquid tags and outputs" }]);
    expect(LiquidSource().safeParse("").success).toBe(false);
    // over the size bound, the 413 of the service answers: the schema does not count it through
    expect(LiquidSource().safeParse("{{".repeat(MB)).success).toBe(true);
  });

  it("bounds the tags of template, campaign, /v1/send and enqueue bodies with a 400 naming the field", () => {
    const many = "{{".repeat(6000);
    expect(details(CreateTemplateRequest, { name: "t", subject: "s", body: many, type: "MARKETING" }).map((d) => d.path)).toEqual(["body"]);
    expect(details(UpdateTemplateRequest, { body: many }).map((d) => d.path)).toEqual(["body"]);
    expect(details(UpdateTemplateRequest, { subject: "s".repeat(999) }).map((d) => d.path)).toEqual(["subject"]);
    const campaign = { name: "c", subject: "s", body: many, from: "a@b.co", audienceType: "ALL" };
    expect(details(CreateCampaignRequest, campaign).map((d) => d.path)).toEqual(["body"]);
    expect(details(SendEmailRequest, { to: "a@b.co", from: "a@b.co", subject: "s", body: many }).map((d) => d.path)).toEqual(["body"]);
    const enqueue = { projectId: "p", source: { type: "CAMPAIGN" }, subject: "s", body: many, marketing: true, recipients: [{ idempotencyKey: "k", to: "a@b.co", contactId: null, data: {} }] };
    expect(details(EnqueueBatchRpcRequest, enqueue).map((d) => d.path)).toEqual(["body"]);
  });

  it("checks a megabyte in a few milliseconds", () => {
    const source = `${"{{ a }} é ".repeat(400)}${"x".repeat(MB - 8000)}`;
    const started = performance.now();
    expect(LiquidSource().safeParse(source).success).toBe(true);
    assertSourceSize({ body: source });
    expect(performance.now() - started).toBeLessThan(100);
  });
});
