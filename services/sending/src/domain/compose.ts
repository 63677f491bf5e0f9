import { createPrivateKey, type KeyObject } from "node:crypto";
import type { SendMailOptions } from "nodemailer/lib/mailer/mail-message";
import { BoundedMap } from "@mailroom/kit";
import { type DkimOptions, rawMessage } from "./raw-message.js";

/** What the delivery worker knows about one email record when it builds the message. */
export interface OutgoingEmail {
  id: string;
  to: string;
  toName: string | null;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  subject: string;
  html: string;
  headers: Record<string, string>;
  marketing: boolean;
  messageId: string;
}

export interface StoredAttachment {
  filename: string;
  contentType: string;
  contentId: string | null;
  disposition: "attachment" | "inline";
  content: Buffer;
}

export interface SigningKey {
  domain: string;
  selector: string;
  privateKey: string;
}

const parsedKeys = new BoundedMap<string, KeyObject>(1000);

/**
 * The PEM key parsed once. Signing with a PEM string parses it on every message, which costs three
 * times the RSA signature itself (about 1 ms against 0.3 ms here): most of the delivery CPU.
 */
export function keyObject(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    parsedKeys.set(pem, key);
  }
  return key;
}

export interface ComposeContext {
  /** The signed VERP address of this email (verp.ts): where its DSNs go. */
  envelopeSender: string;
  /** List-Unsubscribe target of marketing mail. */
  unsubscribeUrl: string;
}

/**
 * Headers the signature covers (decisions.md §5): nodemailer's RFC 6376 list, which has
 * List-Unsubscribe, plus List-Unsubscribe-Post, so a relay cannot strip one-click unsubscription.
 */
export const DKIM_HEADERS =
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:" +
  "Content-ID:Content-Description:In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:" +
  "List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive";

/** Header names a caller may not set in /v1/send `headers`: Mailroom writes them itself. */
export const RESERVED_HEADERS = new Set(
  [
    "from", "to", "cc", "bcc", "sender", "subject", "date", "message-id", "reply-to", "return-path",
    "mime-version", "content-type", "content-transfer-encoding", "content-disposition", "content-id",
    "dkim-signature", "list-unsubscribe", "list-unsubscribe-post", "precedence",
  ],
);

export const messageIdFor = (emailId: string, returnPathDomain: string) => `<${emailId}@${returnPathDomain}>`;

/** The nodemailer message of one email record: deterministic ids, DSN request, DKIM, no file or URL access. */
export function composeMessage(
  email: OutgoingEmail,
  files: StoredAttachment[],
  key: SigningKey,
  ctx: ComposeContext,
): SendMailOptions {
  const headers: Record<string, string> = { ...email.headers };
  if (email.marketing) {
    headers["List-Unsubscribe"] = `<${ctx.unsubscribeUrl}>`;
    headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
    headers["Precedence"] = "bulk";
  }
  return {
    from: { name: email.fromName ?? "", address: email.from },
    to: { name: email.toName ?? "", address: email.to },
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: email.subject,
    html: email.html,
    messageId: email.messageId,
    headers,
    envelope: { from: ctx.envelopeSender, to: [email.to] },
    dsn: { id: email.id, return: "headers", notify: ["success", "failure", "delay"], recipient: email.to },
    attachments: files.map((f) => ({
      filename: f.filename,
      content: f.content,
      contentType: f.contentType,
      contentDisposition: f.disposition,
      ...(f.contentId ? { cid: f.contentId } : {}),
    })),
    // nodemailer hands privateKey to crypto's sign(), which takes a KeyObject as well as a PEM string.
    // signOnThreadPool (our patch of nodemailer, patches/) moves the RSA operation, a quarter of a
    // delivery's CPU, off the event loop that also drives the SMTP connections.
    dkim: {
      domainName: key.domain,
      keySelector: key.selector,
      privateKey: keyObject(key.privateKey) as unknown as string,
      headerFieldNames: DKIM_HEADERS,
      signOnThreadPool: true,
    },
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/**
 * The message as the relay takes it. A single-part email (every campaign and workflow email, and a
 * /v1/send without attachments) goes raw, built and signed without nodemailer's streams
 * (raw-message.ts); the rest go through nodemailer's composer as composeMessage describes them.
 */
export async function outgoingMessage(
  email: OutgoingEmail,
  files: StoredAttachment[],
  key: SigningKey,
  ctx: ComposeContext,
): Promise<SendMailOptions> {
  const message = composeMessage(email, files, key, ctx);
  return (await rawMessage(message, message.dkim as DkimOptions)) ?? message;
}

/** SMTP 5xx is final; anything else (4xx, connection trouble, timeouts) may work later. */
export function isPermanentFailure(err: unknown): boolean {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}
