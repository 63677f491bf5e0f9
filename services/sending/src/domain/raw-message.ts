import MailComposer from "nodemailer/lib/mail-composer";
import MimeNode from "nodemailer/lib/mime-node";
import type { SendMailOptions } from "nodemailer/lib/mailer/mail-message";
import { foldLines } from "nodemailer/lib/mime-funcs";
import { encode as base64Encode, wrap as base64Wrap } from "nodemailer/lib/base64";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";

/**
 * The bytes of a message as nodemailer's composer writes them, before signing (dkim.ts).
 *
 * Every header value is encoded and folded by nodemailer, and the body by its encoders. Two paths:
 * - An HTML-only message whose headers are only those compose.ts writes itself (every campaign and
 *   workflow email, a /v1/send without attachments or caller headers) is written directly: the
 *   headers MailComposer would set, in its order, each through nodemailer's `encodeHeaderValue` and
 *   `foldLines`. Building a MailComposer tree to read its headers back cost about two thirds of
 *   composing such a message (every header lookup normalizes its key with four regular expressions).
 * - Anything else (attachments, caller headers) through MailComposer: a single part has its headers
 *   built in one call and its body encoded in one call; a tree is written by nodemailer's `build()`.
 * All three give the bytes nodemailer's streaming transport sends: test/raw-message.test.ts compares.
 *
 * `message` carries no `attachDataUrls`, so a `data:` image stays in the HTML, as on the transport.
 */
export async function messageBytes(message: SendMailOptions): Promise<Buffer> {
  const direct = directBytes(message);
  if (direct) return direct;
  const { dkim: _unsigned, envelope: _envelope, dsn: _dsn, ...content } = message;
  const root = new MailComposer(content).compile();
  if (root.childNodes.length > 0 || typeof root.content !== "string") return root.build();
  const head = root.buildHeaders(); // sets the Content-Transfer-Encoding it chose
  const transferEncoding = (root.getHeader("Content-Transfer-Encoding") as string | undefined) ?? false;
  return Buffer.from(`${head}\r\n\r\n${encodeBody(root.content, transferEncoding)}`, "utf8");
}

/** The headers compose.ts writes itself, spelled as nodemailer normalizes them. */
const OWN_HEADERS = new Set(["List-Unsubscribe", "List-Unsubscribe-Post", "Precedence"]);
/** What MailComposer gives an HTML body. */
const HTML_TYPE = "text/html; charset=utf-8";

/**
 * nodemailer's header encoder. Its static `MimeNode.encodeHeaderValue` builds a throwaway node per
 * call for this method, which reads nothing of the node but its text encoding (unset here): one node
 * serves every call.
 */
const headerEncoder = new MimeNode() as unknown as { encodeHeaderValue(key: string, value: unknown): string };

function directBytes(m: SendMailOptions): Buffer | null {
  // An empty HTML body is no HTML part to MailComposer (it writes an empty text/plain one)
  if (typeof m.html !== "string" || m.html === "" || m.text !== undefined || (m.attachments?.length ?? 0) > 0) return null;
  const own = Object.entries((m.headers ?? {}) as Record<string, string>);
  if (!own.every(([key]) => OWN_HEADERS.has(key))) return null;

  // The transfer encoding as nodemailer picks it for this content (7bit, quoted-printable or base64).
  // The boundary is given only so the node skips drawing a random one: a single part has none.
  const transferEncoding = new MimeNode(HTML_TYPE, { baseBoundary: "single" }).setContent(m.html).getTransferEncoding();
  const lines: string[] = [];
  const header = (key: string, value: unknown) => {
    const encoded = headerEncoder.encodeHeaderValue(key, value);
    if (encoded.trim()) lines.push(foldLines(`${key}: ${encoded}`, 76));
  };
  // MailComposer's order: the custom headers, then each of its own that the message sets (a Date
  // only when given), then what building adds: the transfer encoding, the Date otherwise, the MIME
  // version, and the Content-Type last.
  for (const [key, value] of own) header(key, value);
  for (const [key, value] of [["From", m.from], ["To", m.to], ["Reply-To", m.replyTo], ["Subject", m.subject], ["Message-ID", m.messageId], ["Date", m.date]] as const) {
    if (value) header(key, value);
  }
  header("Content-Transfer-Encoding", transferEncoding);
  if (!m.date) header("Date", new Date());
  header("MIME-Version", "1.0");
  header("Content-Type", HTML_TYPE);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${encodeBody(m.html, transferEncoding)}`, "utf8");
}

/**
 * The body as nodemailer's streaming path sends it: encoded by its encoders, CRLF line breaks, and
 * ending with a line break (the last line of a message is a line).
 */
export function encodeBody(content: string, transferEncoding: string | false): string {
  const encoded =
    transferEncoding === "quoted-printable"
      ? qpWrap(qpEncode(content), 76)
      : transferEncoding === "base64"
        ? base64Wrap(base64Encode(content), 76)
        : content.replace(/\r?\n|\r/g, "\r\n");
  return encoded.endsWith("\r\n") || encoded === "" ? encoded : `${encoded}\r\n`;
}
