import { createPrivateKey, type KeyObject } from "node:crypto";
import type { SendMailOptions } from "nodemailer/lib/mailer/mail-message";
import { BoundedMap } from "@mailroom/kit";
import { signMessage } from "./dkim.js";
import { messageBytes } from "./raw-message.js";

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
  /** The plain-text alternative: with it the message is multipart/alternative. */
  text?: string | null;
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

export const messageIdFor = (emailId: string, returnPathDomain: string) => `<${emailId}@${returnPathDomain}>`;

/** The nodemailer message of one email record, unsigned: deterministic ids, DSN request, no file or URL access. */
export function composeMessage(email: OutgoingEmail, files: StoredAttachment[], ctx: ComposeContext): SendMailOptions {
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
    ...(email.text ? { text: email.text } : {}),
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
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

type RawMail = Pick<SendMailOptions, "envelope" | "dsn" | "raw" | "messageId" | "disableFileAccess" | "disableUrlAccess">;

/**
 * The message as the relay takes it: the finished bytes (raw-message.ts), DKIM-signed by dkim.ts on
 * the thread pool, with the envelope and DSN request beside them. nodemailer only carries them.
 */
export async function outgoingMessage(
  email: OutgoingEmail,
  files: StoredAttachment[],
  /** null: sent unsigned (Mailroom's own mail from SYSTEM_FROM, whose domain no project verified). */
  key: SigningKey | null,
  ctx: ComposeContext,
): Promise<RawMail> {
  const message = composeMessage(email, files, ctx);
  const bytes = await messageBytes(message);
  return {
    envelope: message.envelope,
    dsn: message.dsn,
    // Only for the relay's answer: a raw message's headers are its own. Without it nodemailer would
    // make up a Message-ID from five calls to randomBytes, for nothing.
    messageId: message.messageId,
    raw: key ? await signMessage(bytes, { domain: key.domain, selector: key.selector, privateKey: keyObject(key.privateKey) }) : bytes,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/** SMTP 5xx is final; anything else (4xx, connection trouble, timeouts) may work later. */
export function isPermanentFailure(err: unknown): boolean {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}
