import { setTimeout as sleep } from "node:timers/promises";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerError } from "smtp-server";
import { toStoredMessage } from "./parse.js";
import type { MessageStore } from "./store.js";

export type FailureStage = "RCPT" | "DATA";

export const MAX_MESSAGE_BYTES = 50 * 1024 * 1024;

interface Failure {
  remaining: number;
  code: number;
  text: string;
}

/** A recipient the sink refused with an injected failure, and when. */
export interface Refusal {
  at: Date;
  to: string;
  code: number;
}

/** Refusals kept at most (the oldest go first). */
const MAX_REFUSALS = 10_000;

/** What tests can change on a running sink to imitate an unreliable relay. */
export class RelayBehaviour {
  private readonly failures = new Map<FailureStage, Failure>();
  /** RCPT commands answered with an injected failure, oldest first: when a sender came back, and to whom. */
  readonly refusals: Refusal[] = [];
  delayMs = 0;

  failNext(n: number, code: number, text: string, stage: FailureStage): void {
    if (!Number.isInteger(code) || code < 400 || code > 599) {
      throw new RangeError(`failNext: code must be a 4xx or 5xx SMTP reply code, got ${code}`);
    }
    if (n <= 0) this.failures.delete(stage);
    else this.failures.set(stage, { remaining: n, code, text });
  }

  /** Injected failures of the stage not yet answered. */
  left(stage: FailureStage): number {
    return this.failures.get(stage)?.remaining ?? 0;
  }

  refused(to: string, code: number): void {
    this.refusals.push({ at: new Date(), to, code });
    if (this.refusals.length > MAX_REFUSALS) this.refusals.shift();
  }

  /** Consumes one injected failure for the stage, if any is pending. */
  take(stage: FailureStage): SMTPServerError | null {
    const failure = this.failures.get(stage);
    if (!failure) return null;
    if (--failure.remaining <= 0) this.failures.delete(stage);
    const error: SMTPServerError = new Error(failure.text);
    error.responseCode = failure.code;
    return error;
  }
}

export function createSmtpServer(store: MessageStore, behaviour: RelayBehaviour): SMTPServer {
  const server = new SMTPServer({
    name: "mailroom-devmailbox",
    banner: "Mailroom development mailbox",
    // The sink never relays anything, so accepting every client (and every credential, for
    // relay URLs that carry a user) cannot turn it into an open relay.
    authOptional: true,
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? "devmailbox" }),
    // Without STARTTLS clients send in plain text instead of stalling on the built-in certificate.
    disabledCommands: ["STARTTLS"],
    hideDSN: false,
    hide8BITMIME: false,
    hideSMTPUTF8: false,
    hideENHANCEDSTATUSCODES: false,
    size: MAX_MESSAGE_BYTES,
    rejectOversized: true,
    // There is no outside DNS in development sandboxes; a reverse lookup would only add latency.
    disableReverseLookup: true,
    socketTimeout: 60_000,
    closeTimeout: 1_000,
    logger: false,
    onRcptTo: (address, _session, callback) => {
      const failure = behaviour.take("RCPT");
      if (failure) behaviour.refused(address.address, failure.responseCode ?? 0);
      callback(failure ?? undefined);
    },
    onData: (stream, session, callback) => {
      readAll(stream)
        .then(async (raw) => {
          if (stream.sizeExceeded) return callback(tooLarge());
          if (behaviour.delayMs > 0) await sleep(behaviour.delayMs);
          const failure = behaviour.take("DATA");
          if (failure) return callback(failure);
          store.add(await toStoredMessage(raw, session.envelope));
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  // Clients dropping connections mid-session surface here; an unhandled 'error' event would
  // take the whole process (and every test using the sink) down. Listen errors still reach
  // whoever awaits the net server's own 'error' event.
  server.on("error", () => {});
  return server;
}

async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    // Keep draining an oversized message so the client gets the 552, but stop buffering it.
    if (length + chunk.length > MAX_MESSAGE_BYTES) {
      length = Infinity;
      continue;
    }
    chunks.push(chunk);
    length += chunk.length;
  }
  return Buffer.concat(chunks);
}

function tooLarge(): SMTPServerError {
  const error: SMTPServerError = new Error("Message exceeds fixed maximum message size");
  error.responseCode = 552;
  return error;
}
