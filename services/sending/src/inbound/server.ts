import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerError } from "smtp-server";
import type { Logger } from "@mailroom/kit";
import { NotYetSent } from "../usecases/feedback.js";
import type { InboundMessage } from "../usecases/inbound.js";

export interface InboundOptions {
  host: string;
  port: number;
  maxBytes: number;
  socketTimeoutMs: number;
  maxClients: number;
  /** Name in the greeting and in Received headers. */
  name: string;
}

export interface InboundHandlers {
  accepts(address: string): Promise<boolean>;
  receive(msg: InboundMessage): Promise<void>;
}

export interface InboundServer {
  port: number;
  close(): Promise<void>;
}

/** Recipients per message: a DSN has one, mail to a project rarely more. */
const MAX_RECIPIENTS = 50;

const smtpError = (code: number, text: string): SMTPServerError => Object.assign(new Error(text), { responseCode: code });

async function readLimited(stream: SMTPServerDataStream, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    length += chunk.length;
    // keep draining so the client gets the 552 instead of a reset
    if (length <= max) chunks.push(chunk);
  }
  return stream.sizeExceeded || length > max ? null : Buffer.concat(chunks);
}

/**
 * The inbound SMTP server (INBOUND_SMTP_PORT): DSNs and complaint reports for the return-path
 * domain, mail for domains verified by a project. Unknown domains are refused at RCPT; a message is
 * answered 250 only once what it causes is durable, and 451 when it cannot be handled yet, so the
 * sending MTA keeps it and retries. No AUTH (nothing is relayed) and no STARTTLS (no certificate is
 * configured; put a TLS-terminating MTA in front when needed).
 */
export async function startInbound(opts: InboundOptions, handlers: InboundHandlers, log: Logger): Promise<InboundServer> {
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
    onData(stream, session, callback) {
      const receivedAt = new Date();
      readLimited(stream, opts.maxBytes)
        .then(async (raw) => {
          if (!raw) return callback(smtpError(552, "5.3.4 Message too big"));
          await handlers.receive({
            raw,
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            remoteAddress: session.remoteAddress,
            helo: session.hostNameAppearsAs,
            receivedAt,
          });
          callback();
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
