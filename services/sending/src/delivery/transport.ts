import nodemailer from "nodemailer";
import { SpanKind } from "@opentelemetry/api";
import { withSpan } from "@mailroom/kit";
import type { SendMailOptions } from "nodemailer/lib/mailer/mail-message";

export interface Relay {
  send(message: SendMailOptions): Promise<{ response: string }>;
  close(): void;
}

/**
 * One pooled SMTP transport per replica. File and URL access are closed at the transport, so no
 * field of a message (an attachment `path`, an `href` body) can make nodemailer read or fetch.
 */
export function createRelay(url: string, poolSize: number): Relay {
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
    send: (message) =>
      withSpan("smtp send", { "messaging.system": "smtp" }, () => transport.sendMail(message) as Promise<{ response: string }>, SpanKind.CLIENT),
    close: () => transport.close(),
  };
}
