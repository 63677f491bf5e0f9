import nodemailer from "nodemailer";
import type { Mailbox } from "../src/index.js";

export function transportFor(mailbox: Mailbox, auth?: { user: string; pass: string }) {
  // No pooling: each test's failure injection must meet a fresh SMTP transaction.
  return nodemailer.createTransport({ host: "127.0.0.1", port: mailbox.smtpPort, secure: false, ...(auth ? { auth } : {}) });
}

export const sample = {
  from: "Sender <sender@example.com>",
  to: "Rcpt <rcpt@example.com>",
  subject: "Hello",
  text: "plain body",
  html: "<p>html body</p>",
};
