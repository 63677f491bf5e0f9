import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import nodemailer from "nodemailer";
import { simpleParser } from "mailparser";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { composeMessage, keyObject, type OutgoingEmail, outgoingMessage, type StoredAttachment } from "../src/domain/compose.js";
import { DKIM_HEADERS, signMessage } from "../src/domain/dkim.js";
import { messageBytes } from "../src/domain/raw-message.js";

// What the relay gets (src/domain/raw-message.ts bytes, signed by src/domain/dkim.ts) must be what
// stock nodemailer's transport sends for the same message with its own DKIM signer. RSA PKCS#1 v1.5
// signatures are deterministic, so with the date fixed the two messages are compared byte for byte,
// DKIM-Signature included, and then verified as a receiver would.
const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const publicDer = publicKey.replace(/-----[^-]+-----|\s/g, "");
const key = { domain: "example.test", selector: "mr1", privateKey };
const ctx = { envelopeSender: "bounces+0193a1b2-0000-7000-8000-000000000001.0123456789abcdef@bounces.example.test", unsubscribeUrl: "https://mail.example.test/u/abc" };
const date = new Date("2026-11-25T08:00:00Z");
// MailComposer's multipart boundaries are random unless this is given: fixed, both paths match
const fixed = { date, baseBoundary: "0123456789abcdef" };

const email = (over: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  id: "0193a1b2-0000-7000-8000-000000000001",
  to: "reader@example.org",
  toName: null,
  from: "news@example.test",
  fromName: "Example News",
  replyTo: null,
  subject: "Spring news for Ada",
  html: `<p>Hi Ada,</p><p>${"Our spring catalogue is here. ".repeat(20)}</p>`,
  headers: {},
  marketing: false,
  messageId: "<0193a1b2-0000-7000-8000-000000000001@bounces.example.test>",
  ...over,
});

const stockDkim = { domainName: key.domain, keySelector: key.selector, privateKey, headerFieldNames: DKIM_HEADERS };

/** What nodemailer's own composer and DKIM stream produce for the same message, CRLF as SMTP sends it. */
async function streamed(e: OutgoingEmail, files: StoredAttachment[] = []): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  const info = await transport.sendMail({ ...composeMessage(e, files, ctx), ...fixed, dkim: stockDkim });
  return info.message as Buffer;
}

async function raw(e: OutgoingEmail): Promise<Buffer> {
  const message = await outgoingMessage(e, [], key, ctx);
  expect(message.raw, "the raw path was taken").toBeInstanceOf(Buffer);
  return message.raw as Buffer;
}

/** outgoingMessage's bytes with the date fixed: MailComposer reads it from the message. */
async function rawAt(e: OutgoingEmail, files: StoredAttachment[] = []): Promise<Buffer> {
  const bytes = await messageBytes({ ...composeMessage(e, files, ctx), ...fixed });
  return signMessage(bytes, { domain: key.domain, selector: key.selector, privateKey: keyObject(privateKey) });
}

const verifies = async (message: Buffer) => {
  const result = await dkimVerify(message, { resolver: async () => [[`v=DKIM1; k=rsa; p=${publicDer}`]] });
  return result.results[0]?.status.result;
};

const cases: Record<string, Partial<OutgoingEmail>> = {
  "a campaign email (quoted-printable, one-click unsubscribe, bulk)": { marketing: true },
  "non-ASCII names, subject and body (base64)": {
    fromName: "Société Générale", toName: "Zoë Ångström", subject: "Frühlingsnachrichten für Zoë ✿",
    html: `<p>${"ありがとうございます。".repeat(30)}</p>`,
  },
  "a short ASCII body with bare LF line breaks (7bit)": { html: "<p>Hello</p>\n<p>Two lines</p>\n" },
  "whitespace runs, tabs and trailing blank lines": { html: "<p>a  \t b   </p>   \r\n\r\n<p>\tc</p>\r\n\r\n\r\n" },
  "caller headers: long, folded, and one trying to inject a header": {
    replyTo: "support@example.test",
    headers: {
      "X-Campaign": `spring-${"x".repeat(120)} with words to fold on`,
      "X-Injected": "ok\r\nBcc: victim@example.org",
      "List-Id": "Spring <spring.example.test>",
    },
  },
  "a quoted display name": { fromName: 'News "Daily", Inc.', html: "<p>.starts with a dot\n.</p>" },
  "a reply-to, an internationalized domain, a long subject to fold": {
    replyTo: "Support Team <support@example.test>", to: "zoë@bücher.example",
    subject: `Spring ${"news and more news ".repeat(8)}for Ada`, marketing: true,
  },
  "a subject and a name trying to inject a header": { subject: "Hi\r\nBcc: victim@example.org", toName: "Ada\r\nBcc: victim@example.org" },
  "an empty body": { html: "" },
};

describe("what the relay gets (raw-message.ts bytes, signed by dkim.ts)", () => {
  for (const [name, over] of Object.entries(cases)) {
    it(`${name}: the bytes nodemailer's streaming path sends, and the signature verifies`, async () => {
      const e = email(over);
      const [viaStreams, viaRaw] = await Promise.all([streamed(e), rawAt(e)]);
      expect(viaRaw.toString("latin1")).toBe(viaStreams.toString("latin1"));
      expect(await verifies(viaRaw)).toBe("pass");
    });
  }

  it("without a date given: every header where nodemailer's streaming path puts it, the Date included", async () => {
    for (const over of [cases["a campaign email (quoted-printable, one-click unsubscribe, bulk)"], cases["caller headers: long, folded, and one trying to inject a header"]]) {
      const message = composeMessage(email(over), [], ctx);
      const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
      const [viaStreams, viaRaw] = await Promise.all([transport.sendMail(message).then((i) => i.message as Buffer), messageBytes(message)]);
      // the two clocks may read different seconds: the Date header's place is what is compared
      const dated = (b: Buffer) => b.toString("latin1").replace(/^Date: .*$/m, "Date: (now)");
      expect(dated(viaRaw)).toBe(dated(viaStreams));
      expect(dated(viaRaw)).toMatch(/\r\nDate: \(now\)\r\nMIME-Version: 1\.0\r\n/);
    }
  });

  it("keeps what the receiver reads: subject, addresses, headers, body", async () => {
    const e = email(cases["caller headers: long, folded, and one trying to inject a header"]);
    const message = await raw({ ...e, marketing: true });
    const parsed = await simpleParser(message);
    expect(parsed.subject).toBe(e.subject);
    expect(parsed.from?.value[0]).toMatchObject({ address: "news@example.test", name: "Example News" });
    expect(parsed.messageId).toBe(e.messageId);
    expect(parsed.html).toBe(`${e.html}\n`); // the message's last line ends, as on the streaming path
    expect(parsed.headers.get("x-injected")).toBe("ok Bcc: victim@example.org");
    expect(parsed.headers.get("bcc")).toBeUndefined();
    expect(parsed.headers.get("precedence")).toBe("bulk");
    // mailparser folds the List-* headers into one object; the lines themselves are what a client reads
    expect(message.toString("latin1")).toMatch(/^List-Unsubscribe: <https:\/\/mail\.example\.test\/u\/abc>\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n/m);
  });

  it("carries the envelope and the DSN request beside the raw message", async () => {
    const message = await outgoingMessage(email(), [], key, ctx);
    expect(message.envelope).toEqual({ from: ctx.envelopeSender, to: ["reader@example.org"] });
    expect(message.dsn).toMatchObject({ id: email().id, return: "headers", notify: ["success", "failure", "delay"] });
    expect(message.raw).toBeInstanceOf(Buffer);
    expect(message).not.toHaveProperty("dkim"); // nodemailer signs nothing: the bytes are signed
  });

  it("attachments (nodemailer's build) and a data: image (kept in the HTML): the bytes the streaming path sends", async () => {
    const files: StoredAttachment[] = [
      { filename: "a.txt", contentType: "text/plain", contentId: null, disposition: "attachment", content: Buffer.from("a  \r\n") },
      { filename: "logo.png", contentType: "image/png", contentId: "logo@example.test", disposition: "inline", content: Buffer.alloc(3000, 7) },
    ];
    const e = email({ html: '<p><img alt="x" src="data:image/png;base64,iVBORw0KGgo="><img src="cid:logo@example.test"></p>' });
    for (const attached of [files, []]) {
      const [viaStreams, viaRaw] = await Promise.all([streamed(e, attached), rawAt(e, attached)]);
      expect(viaRaw.toString("latin1")).toBe(viaStreams.toString("latin1"));
      expect(await verifies(viaRaw)).toBe("pass");
    }
    const parsed = await simpleParser((await outgoingMessage(e, files, key, ctx)).raw as Buffer);
    expect(parsed.attachments.map((a) => [a.filename, a.content.length]).sort()).toEqual([["a.txt", 5], ["logo.png", 3000]]);
    expect(parsed.html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
  });
});
