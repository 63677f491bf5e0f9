import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { boundHeaderSection, cutSanitizedHtml, cutUtf8, stripControls, utf8Prefix } from "./inbound-bounds.js";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("inbound byte bounds", () => {
  it("cuts in bytes on a character boundary, never inside a UTF-8 sequence", () => {
    const s = "aé€😀".repeat(100); // 1 + 2 + 3 + 4 bytes
    for (let max = 0; max < 40; max++) {
      const { value, cut } = cutUtf8(s, max);
      expect(cut).toBe(true);
      expect(bytes(value)).toBeLessThanOrEqual(max);
      expect(bytes(value)).toBeGreaterThan(max - 4);
      expect(value).not.toContain("\uFFFD");
      expect(s.startsWith(value)).toBe(true);
    }
    expect(cutUtf8("short", 5)).toEqual({ value: "short", cut: false });
    // characters, not bytes, would have let 1,000 four-byte emoji through a 1,000 limit
    expect(bytes(cutUtf8("😀".repeat(1000), 1000).value)).toBe(1000);
    expect(utf8Prefix(Buffer.from("€€"), 4).toString()).toBe("€");
  });

  it("leaves no half tag or half entity at the end of cut HTML", () => {
    expect(cutSanitizedHtml('<p>a</p><a href="https://x.example/long">', 20)).toEqual({ value: "<p>a</p>", cut: true });
    expect(cutSanitizedHtml("<p>fish &amp; chips</p>", 12)).toEqual({ value: "<p>fish ", cut: true });
    expect(cutSanitizedHtml("<p>x</p>", 100)).toEqual({ value: "<p>x</p>", cut: false });
  });

  it("strips control characters but keeps tabs and line breaks", () => {
    expect(stripControls("a\u0000b\u0007c\td\r\ne\u001bf\u007f")).toBe("abc\td\r\nef");
  });

  it("cuts a huge header field, keeps the others and the body, and the result still parses", async () => {
    const raw = Buffer.from(
      `From: Alice <alice@example.com>\r\nSubject: ${"Ü".repeat(50_000)}\r\nX-Folded: a\r\n ${"b".repeat(20_000)}\r\nMessage-ID: <m1@example.com>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nthe body\r\n`,
    );
    const { raw: out, cut } = boundHeaderSection(raw, { fieldBytes: 1024, sectionBytes: 64 * 1024 });
    expect(cut).toBe(true);
    expect(out.length).toBeLessThan(4 * 1024);
    const parsed = await simpleParser(out);
    expect(bytes(parsed.subject!)).toBeLessThanOrEqual(1024);
    expect(parsed.subject!.startsWith("ÜÜÜ")).toBe(true);
    expect(parsed.subject).not.toContain("\uFFFD");
    expect(parsed.from?.value[0]?.address).toBe("alice@example.com");
    expect(parsed.messageId).toBe("<m1@example.com>");
    expect(parsed.text?.trim()).toBe("the body");
  });

  it("drops the fields beyond the section bound", async () => {
    const many = Array.from({ length: 200 }, (_, i) => `X-N${i}: ${"v".repeat(100)}\r\n`).join("");
    const raw = Buffer.from(`Subject: first\r\n${many}From: late@example.com\r\n\r\nbody\r\n`);
    const { raw: out, cut } = boundHeaderSection(raw, { fieldBytes: 1024, sectionBytes: 4096 });
    expect(cut).toBe(true);
    const parsed = await simpleParser(out);
    expect(parsed.subject).toBe("first");
    expect(parsed.from).toBeUndefined();
    expect(parsed.text?.trim()).toBe("body");
  });

  it("leaves an ordinary message alone, byte for byte", () => {
    const raw = Buffer.from("Subject: hi\r\nFrom: a@example.com\r\n\r\nbody\r\n");
    expect(boundHeaderSection(raw)).toEqual({ raw, cut: false });
    const headersOnly = Buffer.from("Subject: hi\r\n");
    expect(boundHeaderSection(headersOnly)).toEqual({ raw: headersOnly, cut: false });
  });
});
