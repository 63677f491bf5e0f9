import type { AddressInfo } from "node:net";
import type { AddressObject } from "mailparser";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { ByteBudget, type Logger } from "@mailroom/kit";
import type { Principal } from "../domain/authenticator.js";
import { clientBucket } from "../domain/client-address.js";
import type { SubmittedMessage } from "../domain/relay-message.js";
import { RELAY_REPLIES, type SmtpReply } from "../domain/relay-replies.js";
import type { RelaySubmissions } from "../usecases/relay.js";

export interface RelayOptions {
  host: string;
  /** Submission with STARTTLS (587); null: not listening. */
  port: number | null;
  /** Implicit TLS (465); null: not listening. */
  tlsPort: number | null;
  /** PEM certificate and key; null: no TLS at all (only with `insecure`). */
  tls: { cert: string; key: string } | null;
  /** AUTH without TLS on the submission port (development only). */
  insecure: boolean;
  /** Advertised as SIZE; a message past it is 552. */
  maxBytes: number;
  /** Bytes of messages held at once across connections; past it DATA is 452 (try later). */
  bufferBytes: number;
  maxRecipients: number;
  maxClients: number;
  socketTimeoutMs: number;
  /** Name in the greeting. */
  name: string;
}

export interface RelayServer {
  /** The bound ports (useful when 0 was asked for). */
  port: number | null;
  tlsPort: number | null;
  close(): Promise<void>;
}

const TEMPORARY: SmtpReply = { code: 451, text: "4.3.0 Temporary failure, try again later" };
const smtpError = (r: SmtpReply) => Object.assign(new Error(r.text), { responseCode: r.code });
const principalOf = (session: SMTPServerSession) => session.user as unknown as Principal;

/**
 * The SMTP relay (decisions.md §17): a second listener of the gateway that takes authenticated
 * submissions and sends each as /v1/send would (usecases/relay.ts). smtp-server speaks the
 * protocol: it refuses AUTH before STARTTLS on the submission port (538) unless `insecure`, a MAIL
 * FROM without AUTH (530), and a MAIL FROM whose SIZE is past `maxBytes` (552). This file checks the
 * rest at the step it belongs to, so a client learns of a refusal before it sends the message.
 *
 * Memory (decisions.md §12): a message is held whole while it is parsed and forwarded (as base64
 * inside JSON, about three times its size on the heap), so the messages held at once share
 * `bufferBytes`; one that finds no room is read to its end, dropped, and answered 452.
 */
export async function startRelay(opts: RelayOptions, submissions: RelaySubmissions, log: Logger): Promise<RelayServer> {
  const common: SMTPServerOptions = {
    name: opts.name,
    banner: "Mailroom SMTP relay",
    size: opts.maxBytes,
    authMethods: ["PLAIN", "LOGIN"],
    authOptional: false,
    allowInsecureAuth: opts.insecure,
    disabledCommands: opts.tls ? [] : ["STARTTLS"],
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    maxClients: opts.maxClients,
    socketTimeout: opts.socketTimeoutMs,
    closeTimeout: 5000,
    disableReverseLookup: true,
    logger: false,

    onAuth(auth, session, callback) {
      submissions
        .authenticate(auth.password ?? "", clientBucket(session.remoteAddress))
        .then((r) => {
          if (r.kind === "ok") return callback(null, { user: r.principal as never });
          callback(smtpError(r.kind === "throttled" ? RELAY_REPLIES.authThrottled : RELAY_REPLIES.badCredentials));
        })
        .catch((err) => fail(err, callback));
    },

    onMailFrom(address, session, callback) {
      const domain = address.address.split("@").pop() ?? "";
      submissions
        .senderVerified(principalOf(session), address.address)
        .then((ok) => callback(ok ? undefined : smtpError(RELAY_REPLIES.senderNotVerified(domain))))
        .catch((err) => fail(err, callback));
    },

    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= opts.maxRecipients) return callback(smtpError(RELAY_REPLIES.tooManyRecipients(opts.maxRecipients)));
      submissions
        .takeRecipient(principalOf(session))
        .then((d) => callback(d.allowed ? undefined : smtpError(RELAY_REPLIES.rateLimited)))
        .catch((err) => fail(err, callback));
    },

    onData(stream, session, callback) {
      receive(stream, session)
        .then((r) => (r.code < 300 ? callback(null, r.text) : callback(smtpError(r))))
        .catch((err) => fail(err, callback));
    },
  };

  const budget = new ByteBudget(opts.bufferBytes);
  const receive = async (stream: SMTPServerDataStream, session: SMTPServerSession): Promise<SmtpReply> => {
    const read = await readBounded(stream, opts.maxBytes, budget);
    try {
      if (read.tooBig) return RELAY_REPLIES.tooBig(opts.maxBytes);
      if (read.overBudget) return RELAY_REPLIES.busy;
      const message = await parse(read.raw);
      const envelope = {
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        to: session.envelope.rcptTo.map((r) => r.address),
      };
      const r = await submissions.submit(principalOf(session), message, envelope, { ip: session.remoteAddress, sessionId: session.id });
      if (!r.ok) return r.reply;
      return { code: 250, text: `2.0.0 ${r.replayed ? "Already sent" : "Queued"}: ${r.emailIds.join(" ")}` };
    } finally {
      budget.give(read.held);
    }
  };

  const fail = (err: unknown, callback: (err?: Error | null) => void) => {
    log.warn({ err }, "SMTP relay could not answer a command");
    callback(smtpError(TEMPORARY));
  };

  const servers: Array<{ server: SMTPServer; port: number }> = [];
  const listen = async (secure: boolean, port: number) => {
    const server = new SMTPServer({ ...common, secure });
    // a client's TLS or socket error ends that connection only
    server.on("error", (err) => log.debug({ err }, "SMTP relay connection error"));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, opts.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = (server.server.address() as AddressInfo).port;
    servers.push({ server, port: bound });
    return bound;
  };

  const started: RelayServer = { port: null, tlsPort: null, close: async () => undefined };
  try {
    if (opts.port !== null) started.port = await listen(false, opts.port);
    if (opts.tlsPort !== null && opts.tls) started.tlsPort = await listen(true, opts.tlsPort);
  } catch (err) {
    await Promise.all(servers.map(({ server }) => new Promise<void>((r) => server.close(() => r()))));
    throw err;
  }
  started.close = () => Promise.all(servers.map(({ server }) => new Promise<void>((r) => server.close(() => r())))).then(() => undefined);
  return started;
}

interface Read {
  raw: Buffer;
  /** Bytes taken from the budget: give them back when done with the message. */
  held: number;
  tooBig: boolean;
  overBudget: boolean;
}

/**
 * The message's bytes, each chunk taken from `budget` as it arrives. Past `max` (smtp-server flags
 * it too) or out of budget, what was kept is given back and the rest is read and dropped: the client
 * needs the whole DATA read to get its answer.
 */
async function readBounded(stream: SMTPServerDataStream, max: number, budget: ByteBudget): Promise<Read> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let held = 0;
  let dropped = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (dropped) continue;
    if (bytes <= max && budget.take(chunk.length)) {
      chunks.push(chunk);
      held += chunk.length;
    } else {
      dropped = true;
      chunks.length = 0;
      budget.give(held);
      held = 0;
    }
  }
  const tooBig = stream.sizeExceeded || bytes > max;
  return { raw: dropped ? Buffer.alloc(0) : Buffer.concat(chunks, held), held, tooBig, overBudget: dropped && !tooBig };
}

async function parse(raw: Buffer): Promise<SubmittedMessage> {
  // imported where a message first needs it, not by every gateway's start (0.2 CPU-seconds of it)
  const { simpleParser } = await import("mailparser");
  const m = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  const first = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value[0];
  const from = first(m.from);
  return {
    subject: m.subject,
    from: from ? { address: from.address, name: from.name } : undefined,
    replyTo: first(m.replyTo)?.address,
    messageId: m.messageId,
    html: m.html,
    text: m.text,
    headerLines: m.headerLines,
    attachments: m.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      contentDisposition: a.contentDisposition,
      cid: a.cid,
      content: a.content,
    })),
  };
}
