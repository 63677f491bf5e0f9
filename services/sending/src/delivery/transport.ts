import nodemailer from "nodemailer";
import PQueue from "p-queue";
import { SpanKind } from "@opentelemetry/api";
import { withSpan } from "@mailroom/kit";
import type { SendMailOptions } from "nodemailer/lib/mailer/mail-message";
import type { DeliveryLane } from "../domain/lanes.js";

export interface Relay {
  send(message: SendMailOptions, lane: DeliveryLane): Promise<{ response: string }>;
  close(): void;
}

/** Messages in nodemailer's pool per connection: one on the wire and one ready, so none idles. */
const HANDED_PER_CONNECTION = 2;

/**
 * One pooled SMTP transport per replica. File and URL access are closed at the transport, so no
 * field of a message (an attachment `path`, an `href` body) can make nodemailer read or fetch.
 *
 * nodemailer's pool is one FIFO: with every bulk delivery slot handing it a message, a transactional
 * one would wait behind DELIVERY_CONCURRENCY of them (seconds, with a relay that takes a few hundred
 * milliseconds a message). So only two messages per connection are handed over at a time, and a
 * transactional message is handed over before any waiting bulk one.
 */
export function createRelay(url: string, poolSize: number): Relay {
  const handOver = new PQueue({ concurrency: poolSize * HANDED_PER_CONNECTION });
  const transport = nodemailer.createTransport({
    pool: true,
    url,
    maxConnections: poolSize,
    maxMessages: 1000,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    send: (message, lane) =>
      handOver.add(
        () => withSpan("smtp send", { "messaging.system": "smtp" }, () => transport.sendMail(message) as Promise<{ response: string }>, SpanKind.CLIENT),
        { priority: lane === "transactional" ? 1 : 0 },
      ),
    close: () => transport.close(),
  };
}
