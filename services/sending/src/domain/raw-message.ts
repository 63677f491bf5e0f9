import MailComposer from "nodemailer/lib/mail-composer";
import type { SendMailOptions } from "nodemailer/lib/mailer/mail-message";
import { encode as base64Encode, wrap as base64Wrap } from "nodemailer/lib/base64";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";

/**
 * The bytes of a message as nodemailer's composer writes them, before signing (dkim.ts).
 *
 * The MIME tree always comes from nodemailer's MailComposer, so headers are chosen, encoded and
 * folded by nodemailer. A single-part tree (every campaign and workflow email, a /v1/send without
 * attachments) is then written without streams: its headers in one call and its body through
 * nodemailer's encoders in one call. Streaming each message through the MIME encoder and its
 * pass-throughs cost about 560 µs of CPU per campaign email, more than half of composing and
 * signing. A tree with attachments is written by nodemailer's own `build()`. The two give the same
 * bytes for a single part: test/raw-message.test.ts compares them with nodemailer's transport.
 *
 * `message` carries no `attachDataUrls`, so a `data:` image stays in the HTML, as on the transport.
 */
export async function messageBytes(message: SendMailOptions): Promise<Buffer> {
  const { dkim: _unsigned, envelope: _envelope, dsn: _dsn, ...content } = message;
  const root = new MailComposer(content).compile();
  if (root.childNodes.length > 0 || typeof root.content !== "string") return root.build();
  const head = root.buildHeaders();
  return Buffer.from(`${head}\r\n\r\n${encodeBody(root.content, root.getTransferEncoding())}`, "utf8");
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
