import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerError } from "smtp-server";
import { ByteBudget, type Logger } from "@mailroom/kit";
import { NotYetSent } from "../usecases/feedback.js";
import type { InboundMessage } from "../usecases/inbound.js";

export interface InboundOptions {
  host: string;
  port: number;
  /** Largest message taken at all: advertised as SIZE, 552 beyond. */
  maxBytes: number;
  /** Bytes of one message kept and parsed; the rest is read and dropped, and the message marked truncated. */
  keepBytes: number;
  /** Bytes kept for all messages being received or handled at once; beyond, 452 until some are done. */
  bufferBytes: number;
  socketTimeoutMs: number;
  maxClients: number;
  /** Name in the greeting and in Received headers. */
  name: string;
}

export interface InboundHandlers {
  accepts(address: string): Promise<boolean>;
  receive(msg: InboundMessage): Promise<void>;
  /** What became of each message that reached DATA. */
  outcome?(outcome: InboundOutcome): void;
}

export type InboundOutcome = "accepted" | "truncated" | "deferred_memory" | "too_big";

export interface InboundServer {
  port: number;
  close(): Promise<void>;
}

/** Recipients per message: a DSN has one, mail to a project rarely more. */
const MAX_RECIPIENTS = 50;
/** Reading a message this many times over the size limit only to answer 552 serves nobody. */
const CUTOFF_FACTOR = 2;

const smtpError = (code: number, text: string): SMTPServerError => Object.assign(new Error(text), { responseCode: code });

interface Read {
  /** The first `keepBytes` of the message (or less, when the budget ran out). */
  raw: Buffer;
  /** Bytes of the whole message as sent. */
  bytes: number;
  /** Bytes taken from the budget for `raw`: give them back when done with it. */
  held: number;
  /** The budget could not hold what the message needed. */
  overBudget: boolean;
}

/**
 * Reads a message to its end, keeping at most `keep` bytes of it, each taken from `budget` as it
 * arrives. The rest is read and dropped (the client needs the whole DATA read to get an answer).
 */
async function readKept(stream: SMTPServerDataStream, keep: number, budget: ByteBudget, cutoff: number, onCutoff: () => void): Promise<Read> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  let overBudget = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (!overBudget && kept < keep) {
      const part = chunk.length <= keep - kept ? chunk : chunk.subarray(0, keep - kept);
      if (budget.take(part.length)) {
        chunks.push(part);
        kept += part.length;
      } else {
        // this message will be answered 452: what it holds is of no use, let others have it now
        overBudget = true;
        budget.give(kept);
        chunks.length = 0;
        kept = 0;
      }
    }
    if (bytes > cutoff) {
      onCutoff();
      break;
    }
  }
  return { raw: Buffer.concat(chunks, kept), bytes, held: kept, overBudget };
}

/**
 * The inbound SMTP server (INBOUND_SMTP_PORT): DSNs and complaint reports for the return-path
 * domain, mail for domains verified by a project. Unknown domains are refused at RCPT; a message is
 * answered 250 only once what it causes is durable, and 451 when it cannot be handled yet, so the
 * sending MTA keeps it and retries. No AUTH (nothing is relayed) and no STARTTLS (no certificate is
 * configured; put a TLS-terminating MTA in front when needed).
 *
 * Memory (decisions.md §12): a message keeps at most `keepBytes` (the rest is read and dropped, and
 * the message goes on marked truncated), and all messages together at most `bufferBytes`: when that
 * is spent, MAIL FROM and any DATA that cannot get room are answered 452 and the sender retries later.
 * Beyond `maxBytes` (the advertised SIZE) a message is 552, and a client still sending at twice that
 * is cut off with 421.
 */
export async function startInbound(opts: InboundOptions, handlers: InboundHandlers, log: Logger): Promise<InboundServer> {
  const budget = new ByteBudget(opts.bufferBytes);
  const server = new SMTPServer({
    name: opts.name,
    banner: "Mailroom inbound",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: opts.maxBytes,
    maxClients: opts.maxClients,
    socketTimeout: opts.socketTimeoutMs,
    closeTimeout: 5_000,
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, "4.5.3 Too many recipients"));
      handlers.accepts(address.address).then(
        (ok) => callback(ok ? undefined : smtpError(550, `5.7.1 <${address.address}>: recipient domain not accepted here`)),
        () => callback(smtpError(451, "4.3.0 Temporary failure, try again later")),
      );
    },
    onMailFrom(_address, _session, callback) {
      // no room to keep a message now: say so before the client sends one
      if (!budget.full) return callback();
      handlers.outcome?.("deferred_memory");
      callback(smtpError(452, "4.3.1 Insufficient system storage, try again later"));
    },
    onData(stream, session, callback) {
      const receivedAt = new Date();
      // A client still sending at CUTOFF_FACTOR times the advertised SIZE is not a mail server.
      const cutoff = () => {
        for (const c of server.connections) if (c.id === session.id) c.send(421, "4.3.4 Message far over the size limit, closing connection");
      };
      readKept(stream, opts.keepBytes, budget, opts.maxBytes * CUTOFF_FACTOR, cutoff)
        .then(async (read) => {
          try {
            if (stream.sizeExceeded || read.bytes > opts.maxBytes) {
              handlers.outcome?.("too_big");
              return callback(smtpError(552, "5.3.4 Message too big"));
            }
            if (read.overBudget) {
              handlers.outcome?.("deferred_memory");
              return callback(smtpError(452, "4.3.1 Insufficient system storage, try again later"));
            }
            const truncated = read.bytes > read.raw.length;
            await handlers.receive({
              raw: read.raw,
              truncated,
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              remoteAddress: session.remoteAddress,
              helo: session.hostNameAppearsAs,
              receivedAt,
            });
            handlers.outcome?.(truncated ? "truncated" : "accepted");
            callback();
          } finally {
            budget.give(read.held);
          }
        })
        .catch((err: unknown) => {
          if (!(err instanceof NotYetSent)) log.warn({ err: String(err) }, "inbound message failed; asked the sender to retry");
          callback(smtpError(451, "4.3.0 Temporary failure, try again later"));
        });
    },
  });
  // Clients dropping mid-session surface as 'error' events; they must not take the service down.
  server.on("error", (err) => log.debug({ err: String(err) }, "inbound SMTP connection error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  log.info({ port, host: opts.host }, "inbound SMTP listening");
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
