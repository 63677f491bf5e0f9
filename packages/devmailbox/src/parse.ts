import { randomUUID } from "node:crypto";
import { simpleParser, type AddressObject, type EmailAddress } from "mailparser";
import type { SMTPServerEnvelope } from "smtp-server";
import type { EnvelopeDsn, StoredMessage } from "./types.js";

/** Turns one accepted SMTP transaction into the stored form; never throws on malformed mail. */
export async function toStoredMessage(raw: Buffer, envelope: SMTPServerEnvelope): Promise<StoredMessage> {
  const base = {
    id: randomUUID(),
    receivedAt: new Date().toISOString(),
    envelope: toEnvelope(envelope),
    raw,
  };
  try {
    const mail = await simpleParser(raw);
    return {
      ...base,
      subject: mail.subject ?? "",
      to: addresses(mail.to),
      from: addresses(mail.from)[0] ?? null,
      messageId: mail.messageId ?? null,
      html: mail.html === false ? null : mail.html,
      text: mail.text ?? null,
      headers: mail.headerLines.map(({ key, line }) => ({ name: key, value: headerValue(line) })),
    };
  } catch {
    // A sink that loses mail it could not parse hides exactly the bug a developer is looking for.
    return { ...base, subject: "", to: [], from: null, messageId: null, html: null, text: null, headers: [] };
  }
}

function toEnvelope(envelope: SMTPServerEnvelope): StoredMessage["envelope"] {
  const result: StoredMessage["envelope"] = {
    mailFrom: envelope.mailFrom ? envelope.mailFrom.address : "",
    rcptTo: envelope.rcptTo.map((rcpt) => rcpt.address),
  };
  if (envelope.dsn) {
    const dsn: EnvelopeDsn = {
      ret: envelope.dsn.ret,
      envid: envelope.dsn.envid,
      recipients: envelope.rcptTo.map((rcpt) => ({
        address: rcpt.address,
        notify: rcpt.dsn?.notify ?? null,
        orcpt: rcpt.dsn?.orcpt ?? null,
      })),
    };
    result.dsn = dsn;
  }
  return result;
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) => flatten(object.value));
}

function flatten(list: EmailAddress[]): string[] {
  return list.flatMap((entry) => (entry.group ? flatten(entry.group) : entry.address ? [entry.address] : []));
}

function headerValue(line: string): string {
  const colon = line.indexOf(":");
  return line.slice(colon + 1).replace(/\r?\n[ \t]+/g, " ").trim();
}
