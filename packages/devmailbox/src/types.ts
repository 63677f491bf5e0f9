/** DSN parameters of one transaction (RFC 3461): RET/ENVID from MAIL FROM, NOTIFY/ORCPT per RCPT TO. */
export interface EnvelopeDsn {
  ret: string | null;
  envid: string | null;
  recipients: Array<{ address: string; notify: string[] | null; orcpt: string | null }>;
}

export interface StoredMessage {
  id: string;
  receivedAt: string;
  envelope: { mailFrom: string; rcptTo: string[]; dsn?: EnvelopeDsn };
  raw: Buffer;
  subject: string;
  /** Addresses of the To header (the envelope recipients are in `envelope.rcptTo`). */
  to: string[];
  from: string | null;
  messageId: string | null;
  html: string | null;
  text: string | null;
  /** Header fields in message order, unfolded but not decoded, names lower-cased. */
  headers: Array<{ name: string; value: string }>;
}

/** The JSON shape of a message: everything but the raw source, which has its own route. */
export type MessageSummary = Omit<StoredMessage, "raw"> & { size: number };

export function toSummary({ raw, ...rest }: StoredMessage): MessageSummary {
  return { ...rest, size: raw.length };
}
