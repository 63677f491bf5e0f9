import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { SMTPServer } from "smtp-server";
import { RelayBehaviour, createSmtpServer, type FailureStage, type Refusal } from "./smtp.js";
import { MessageStore, type MessagePredicate } from "./store.js";
import type { StoredMessage } from "./types.js";
import { createWebServer } from "./web.js";

export type { EnvelopeDsn, MessageSummary, StoredMessage } from "./types.js";
export type { FailureStage, Refusal } from "./smtp.js";
export type { MessagePredicate } from "./store.js";
export { MAX_MESSAGE_BYTES } from "./smtp.js";

export interface MailboxOptions {
  /** 0 (the default) picks a free port. */
  smtpPort?: number;
  /** 0 (the default) picks a free port. */
  httpPort?: number;
  /** Interface to bind both servers to; loopback by default so the sink is never reachable from outside. */
  host?: string;
  /** Ring buffer size: older messages are dropped beyond it. */
  maxMessages?: number;
}

export interface Mailbox {
  smtpUrl: string;
  webUrl: string;
  smtpPort: number;
  httpPort: number;
  /** Stored messages, oldest first. */
  messages(): StoredMessage[];
  clear(): void;
  /**
   * Resolves with all stored messages matching `predicate` once at least `count` (default 1)
   * match, counting messages received before the call; rejects after `timeoutMs`.
   */
  waitFor(predicate: MessagePredicate, timeoutMs: number, count?: number): Promise<StoredMessage[]>;
  /** Failure injection for tests: the next n RCPT (default) or DATA commands get this reply. n <= 0 cancels. */
  failNext(n: number, code: number, text: string, stage?: FailureStage): void;
  /** Failures `failNext` injected for the stage (RCPT by default) that no command has had yet. */
  failuresLeft(stage?: FailureStage): number;
  /** The recipients refused at RCPT by an injected failure, oldest first, with when. */
  refusals(): Refusal[];
  /** Delay before answering the end of DATA, to imitate a slow relay. 0 turns it off. */
  setDelay(ms: number): void;
  stop(): Promise<void>;
}

export async function startMailbox(opts: MailboxOptions = {}): Promise<Mailbox> {
  const host = opts.host ?? "127.0.0.1";
  const store = new MessageStore(opts.maxMessages ?? 1000);
  const behaviour = new RelayBehaviour();
  const smtp = createSmtpServer(store, behaviour);
  const web = createWebServer(store);

  const smtpPort = await listen(smtp.server, opts.smtpPort ?? 0, host);
  let httpPort: number;
  try {
    httpPort = await listen(web, opts.httpPort ?? 0, host);
  } catch (error) {
    await closeSmtp(smtp);
    throw error;
  }
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    smtpUrl: `smtp://${urlHost}:${smtpPort}`,
    webUrl: `http://${urlHost}:${httpPort}`,
    smtpPort,
    httpPort,
    messages: () => store.list(),
    clear: () => store.clear(),
    waitFor: (predicate, timeoutMs, count) => store.waitFor(predicate, timeoutMs, count),
    failNext: (n, code, text, stage = "RCPT") => behaviour.failNext(n, code, text, stage),
    failuresLeft: (stage = "RCPT") => behaviour.left(stage),
    refusals: () => [...behaviour.refusals],
    setDelay: (ms) => {
      behaviour.delayMs = Math.max(0, ms);
    },
    stop: async () => {
      web.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => web.close(() => resolve())), closeSmtp(smtp)]);
    },
  };
}

async function listen(server: Server | SMTPServer["server"], port: number, host: string): Promise<number> {
  server.listen(port, host);
  await Promise.race([once(server, "listening"), once(server, "error").then(([error]) => Promise.reject(error))]);
  return (server.address() as AddressInfo).port;
}

function closeSmtp(smtp: SMTPServer): Promise<void> {
  return new Promise((resolve) => smtp.close(() => resolve()));
}
