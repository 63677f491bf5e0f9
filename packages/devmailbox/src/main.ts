#!/usr/bin/env node
import { startMailbox } from "./index.js";

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    console.error(`${name} must be a port number (0-65535), got "${raw}"`);
    process.exit(1);
  }
  return value;
}

const smtpPort = port("DEVMAILBOX_SMTP_PORT", 1025);
const httpPort = port("DEVMAILBOX_HTTP_PORT", 8025);
const mailbox = await startMailbox({ smtpPort, httpPort }).catch((error: NodeJS.ErrnoException) => {
  const hint = error.code === "EADDRINUSE" ? ": set DEVMAILBOX_SMTP_PORT / DEVMAILBOX_HTTP_PORT to free ports" : "";
  console.error(`devmailbox: cannot listen on ${smtpPort} (SMTP) and ${httpPort} (web): ${error.message}${hint}`);
  process.exit(1);
});
console.log(`devmailbox SMTP ${mailbox.smtpUrl}`);
console.log(`devmailbox web  ${mailbox.webUrl}`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // A second Ctrl-C means "now": don't make the user wait for lingering SMTP clients.
    if (stopping) process.exit(130);
    stopping = true;
    mailbox.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("devmailbox: stop failed", error);
        process.exit(1);
      },
    );
  });
}
