import { createHash } from "node:crypto";
import { HeaderName, MAX_ATTACHMENTS, RESERVED_HEADERS, type SendEmailRequest } from "@mailroom/contracts";

/**
 * What the SMTP relay takes from a submitted message (mailparser's ParsedMail, reduced to what the
 * mapping reads, so the rules below are tested without a parser or a server).
 */
export interface SubmittedMessage {
  subject?: string;
  from?: { address?: string; name?: string };
  replyTo?: string;
  messageId?: string;
  html?: string | false;
  text?: string;
  /** Header lines as sent: `line` is `Name: value`, possibly folded. */
  headerLines: ReadonlyArray<{ key: string; line: string }>;
  attachments: Array<{
    filename?: string;
    contentType: string;
    contentDisposition?: string;
    /** `<id>` as in the Content-ID header. */
    cid?: string;
    content: Buffer;
  }>;
}

/** Why a message cannot become a /v1/send request (the relay answers 552 or 550 with `message`). */
export type Unmappable = { kind: "too_many_attachments" | "no_sender"; message: string };

/**
 * Headers that describe the submission or the transport, not the message: a relay writes its own,
 * so passing the client's on would only duplicate or contradict them.
 */
const TRANSPORT_HEADERS = new Set(["received", "x-mailer-recipient", "x-original-to", "delivered-to", "arc-seal", "arc-message-signature", "arc-authentication-results", "authentication-results", "bcc"]);
const MAX_HEADER_VALUE = 998;

/**
 * The /v1/send body that sends one submitted message to `recipients` (the envelope's RCPT TO, so Cc
 * and Bcc recipients each get their own email, as every recipient of /v1/send does). The message's
 * own headers go on as `headers`, minus those Mailroom writes itself (the /v1/send rule) and the
 * transport's; its HTML (or its text, as HTML) is the body, its text part the `text` alternative,
 * and every attachment is kept, inline images with their content id so `cid:` references still
 * resolve.
 *
 * A message is taken literally: its HTML and subject are not Liquid templates (a `{{` in a newsletter
 * someone else wrote must reach the recipient as written), so the markup is escaped (`literalHtml`,
 * `rawBlock`).
 */
export function sendRequestOf(msg: SubmittedMessage, envelopeFrom: string, recipients: string[]): SendEmailRequest | Unmappable {
  if (msg.attachments.length > MAX_ATTACHMENTS) {
    return { kind: "too_many_attachments", message: `A message may carry at most ${MAX_ATTACHMENTS} attachments` };
  }
  const fromAddress = msg.from?.address || envelopeFrom;
  if (!fromAddress) return { kind: "no_sender", message: "The message has no sender" };
  const html = msg.html || textAsHtml(msg.text ?? "");
  const req: SendEmailRequest = {
    to: recipients,
    from: msg.from?.name ? { email: fromAddress, name: msg.from.name } : fromAddress,
    subject: literalLiquid(oneLine(msg.subject ?? "") || "(no subject)"),
    body: literalHtml(html || " "),
    ...(msg.text ? { text: rawBlock(msg.text) } : {}),
    attachments: msg.attachments.map((a, i) => {
      const cid = a.cid?.replace(/^<|>$/g, "");
      const inline = a.contentDisposition === "inline" && Boolean(cid);
      return {
        filename: headerParam(a.filename || `attachment-${i + 1}`),
        content: a.content.toString("base64"),
        contentType: headerParam(a.contentType || "application/octet-stream"),
        ...(cid && !/[<>\s"']/.test(cid) ? { contentId: cid } : {}),
        disposition: inline ? "inline" : "attachment",
      };
    }),
  };
  if (msg.replyTo) req.reply = msg.replyTo;
  const headers = keptHeaders(msg.headerLines);
  if (Object.keys(headers).length) req.headers = headers;
  if (!req.attachments!.length) delete req.attachments;
  return req;
}

/** Text kept from Liquid: a `{% raw %}` block when it holds markup (no HTML entities there). */
export function rawBlock(text: string): string {
  if (!/\{[{%]/.test(text)) return text;
  // an `endraw` inside would end the block early; its `{%` loses the brace that makes it a tag
  return `{% raw %}${text.replace(/\{%(-?\s*endraw)/g, "{ %$1")}{% endraw %}`;
}

/** The message's own headers that /v1/send may carry: unfolded, one value per name (the last). */
export function keptHeaders(lines: SubmittedMessage["headerLines"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { line } of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || TRANSPORT_HEADERS.has(lower) || !HeaderName.safeParse(name).success) continue;
    const value = line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, " ")
      .trim();
    if (value.length > MAX_HEADER_VALUE || /[\r\n]/.test(value)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The HTML with Liquid's markup neutralised: `{{` and `{%` become `&#123;{` and `&#123;%`, which a
 * browser shows as the same characters (in text and in attribute values alike) and which Liquid
 * does not see as tags. Inside `<style>` and `<script>` the reference would show as written, but CSS
 * and scripts in mail have no reason to hold `{{` or `{%`.
 */
export function literalHtml(html: string): string {
  return html.replace(/\{(?=[{%])/g, "&#123;");
}

const RAW_WRAP = "{% raw %}{% endraw %}";
/** A subject kept from Liquid (`rawBlock`), within a subject's 998 characters once wrapped. */
export function literalLiquid(subject: string): string {
  return rawBlock(subject) === subject ? subject : rawBlock(subject.slice(0, 998 - RAW_WRAP.length));
}

/** A text-only message as HTML: escaped, line breaks kept. */
export function textAsHtml(text: string): string {
  if (!text) return "";
  const escaped = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
  return `<div style="white-space: pre-wrap">${escaped}</div>`;
}

const oneLine = (s: string) => s.replace(/[\r\n]+\s*/g, " ").trim().slice(0, 998);
/** Attachment names and types land in MIME headers: no line breaks or quotes (the contract's rule). */
const headerParam = (s: string) => s.replace(/[\r\n"']/g, "_").slice(0, 255);

/**
 * The idempotency key of a submission (decisions.md §17: the same Message-ID within 24 h is sent
 * once). The recipients are part of it: a client told "452 too many recipients" sends the same
 * message again to the rest, and that second transaction must go out. Null without a Message-ID.
 */
export function submissionKey(messageId: string | undefined, recipients: string[]): string | null {
  const id = messageId?.trim();
  if (!id) return null;
  const rcpts = [...new Set(recipients.map((r) => r.toLowerCase()))].sort().join(",");
  return `smtp:${createHash("sha256").update(`${id}\n${rcpts}`).digest("hex")}`;
}
