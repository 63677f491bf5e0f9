import { describe, expect, it } from "vitest";
import { SendEmailRequest } from "@mailroom/contracts";
import { keptHeaders, literalHtml, literalLiquid, sendRequestOf, submissionKey, textAsHtml, type SubmittedMessage } from "./relay-message.js";
import { smtpReplyOf } from "./relay-replies.js";

const message = (over: Partial<SubmittedMessage> = {}): SubmittedMessage => ({
  subject: "Hello",
  from: { address: "app@example.com", name: "App" },
  messageId: "<m1@client>",
  html: "<p>Hi</p>",
  text: "Hi",
  headerLines: [],
  attachments: [],
  ...over,
});

describe("a submitted message as /v1/send's body", () => {
  it("sends to the envelope's recipients from the From header, with the message's subject, HTML and reply-to", () => {
    const req = sendRequestOf(message({ replyTo: "help@example.com" }), "bounce@example.com", ["a@x.test", "b@x.test"]);
    expect(req).toEqual({
      to: ["a@x.test", "b@x.test"],
      from: { email: "app@example.com", name: "App" },
      subject: "Hello",
      body: "<p>Hi</p>",
      text: "Hi",
      reply: "help@example.com",
    });
    expect(SendEmailRequest.safeParse(req).success).toBe(true);
  });

  it("falls back to MAIL FROM without a From header, and to the text as HTML without an HTML part", () => {
    const req = sendRequestOf(message({ from: undefined, html: false, text: "a < b\nline 2" }), "env@example.com", ["a@x.test"]);
    expect(req).toMatchObject({ from: "env@example.com", body: '<div style="white-space: pre-wrap">a &lt; b\nline 2</div>', text: "a < b\nline 2" });
  });

  it("keeps attachments and inline images with their content id, as Base64", () => {
    const req = sendRequestOf(
      message({
        attachments: [
          { filename: "a.pdf", contentType: "application/pdf", content: Buffer.from("pdf") },
          { filename: "logo.png", contentType: "image/png", contentDisposition: "inline", cid: "<logo@x>", content: Buffer.from("png") },
          { contentType: "text/plain", contentDisposition: "inline", content: Buffer.from("no cid, no name") },
        ],
      }),
      "",
      ["a@x.test"],
    ) as SendEmailRequest;
    expect(req.attachments).toEqual([
      { filename: "a.pdf", contentType: "application/pdf", content: Buffer.from("pdf").toString("base64"), disposition: "attachment" },
      { filename: "logo.png", contentType: "image/png", content: Buffer.from("png").toString("base64"), contentId: "logo@x", disposition: "inline" },
      { filename: "attachment-3", contentType: "text/plain", content: Buffer.from("no cid, no name").toString("base64"), disposition: "attachment" },
    ]);
    expect(SendEmailRequest.safeParse(req).success).toBe(true);
  });

  it("refuses more attachments than /v1/send takes, and a message with no sender at all", () => {
    const many = Array.from({ length: 11 }, () => ({ filename: "f", contentType: "text/plain", content: Buffer.from("x") }));
    expect(sendRequestOf(message({ attachments: many }), "", ["a@x.test"])).toMatchObject({ kind: "too_many_attachments" });
    expect(sendRequestOf(message({ from: undefined }), "", ["a@x.test"])).toMatchObject({ kind: "no_sender" });
  });

  it("gives a message without a subject one, and makes a folded subject one line", () => {
    expect(sendRequestOf(message({ subject: undefined }), "", ["a@x.test"])).toMatchObject({ subject: "(no subject)" });
    expect(sendRequestOf(message({ subject: "a\r\n  b" }), "", ["a@x.test"])).toMatchObject({ subject: "a b" });
  });

  it("cleans attachment names and types of quotes and line breaks (they land in MIME headers)", () => {
    const req = sendRequestOf(message({ attachments: [{ filename: 'x"y\r\n.txt', contentType: "text/plain", content: Buffer.from("x") }] }), "", ["a@x.test"]) as SendEmailRequest;
    expect(req.attachments![0]!.filename).toBe("x_y__.txt");
  });
});

describe("the message's own headers", () => {
  it("keeps custom headers, unfolded, and drops those Mailroom writes and the transport's", () => {
    const headers = keptHeaders([
      { key: "x-campaign", line: "X-Campaign: q4\r\n  report" },
      { key: "subject", line: "Subject: Hi" },
      { key: "message-id", line: "Message-ID: <m@x>" },
      { key: "received", line: "Received: from a by b" },
      { key: "dkim-signature", line: "DKIM-Signature: v=1" },
      { key: "list-id", line: "List-Id: <news.example.com>" },
    ]);
    expect(headers).toEqual({ "X-Campaign": "q4 report", "List-Id": "<news.example.com>" });
  });

  it("drops values past 998 characters rather than refusing the message", () => {
    expect(keptHeaders([{ key: "x-long", line: `X-Long: ${"a".repeat(999)}` }])).toEqual({});
  });
});

describe("literal content (a submitted message is not a Liquid template)", () => {
  it("neutralises Liquid markup in HTML with a character reference a mail client shows as a brace", () => {
    expect(literalHtml("<p>{{ name }} {% if x %} { plain }</p>")).toBe("<p>&#123;{ name }} &#123;% if x %} { plain }</p>");
    expect(literalHtml("<p>no markup</p>")).toBe("<p>no markup</p>");
  });

  it("wraps a subject with markup in a raw block, and keeps an endraw inside from closing it", () => {
    expect(literalLiquid("Plain")).toBe("Plain");
    expect(literalLiquid("Hi {{ x }}")).toBe("{% raw %}Hi {{ x }}{% endraw %}");
    expect(literalLiquid("a {% endraw %} b")).toBe("{% raw %}a { % endraw %} b{% endraw %}");
  });

  it("keeps the text part as a raw block when it holds markup", () => {
    const req = sendRequestOf(message({ text: "Dear {{ you }}" }), "", ["a@x.test"]);
    expect(req).toMatchObject({ text: "{% raw %}Dear {{ you }}{% endraw %}" });
  });

  it("escapes text shown as HTML", () => {
    expect(textAsHtml('<b>&"')).toBe('<div style="white-space: pre-wrap">&lt;b&gt;&amp;&quot;</div>');
    expect(textAsHtml("")).toBe("");
  });
});

describe("the idempotency key of a submission", () => {
  it("is the Message-ID with the recipients, in any order and case", () => {
    const k = submissionKey("<m1@client>", ["a@x.test", "B@x.test"]);
    expect(k).toMatch(/^smtp:[0-9a-f]{64}$/);
    expect(submissionKey(" <m1@client> ", ["b@x.test", "a@x.test"])).toBe(k);
  });

  it("differs for the rest of the recipients of the same message (the client's retry after 452)", () => {
    expect(submissionKey("<m1@client>", ["c@x.test"])).not.toBe(submissionKey("<m1@client>", ["a@x.test"]));
  });

  it("is absent without a Message-ID", () => {
    expect(submissionKey(undefined, ["a@x.test"])).toBeNull();
    expect(submissionKey("  ", ["a@x.test"])).toBeNull();
  });
});

describe("API errors as SMTP answers", () => {
  it("maps /v1/send's refusals to permanent codes with the reason, and outages to temporary ones", () => {
    expect(smtpReplyOf({ error: "DOMAIN_NOT_VERIFIED", message: "Domain x.test is not verified" })).toEqual({ code: 550, text: "5.7.1 Sender domain not verified: Domain x.test is not verified" });
    expect(smtpReplyOf({ error: "PAYLOAD_TOO_LARGE", message: "big" }).code).toBe(552);
    expect(smtpReplyOf({ error: "VALIDATION_ERROR", message: "bad", details: [{ path: "subject", message: "too long" }] })).toEqual({
      code: 550,
      text: "5.6.0 Message refused: bad; subject: too long",
    });
    expect(smtpReplyOf({ error: "SERVICE_UNAVAILABLE", message: "nats://10.0.0.1 down" })).toEqual({ code: 451, text: "4.3.0 Service unavailable, try again later" });
    expect(smtpReplyOf({ error: "INTERNAL_ERROR", message: "stack" }).code).toBe(451);
  });
});
