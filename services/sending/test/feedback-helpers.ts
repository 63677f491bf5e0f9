import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { Platform, REPO_ROOT, apiClient, freePort, startDnsServer, waitFor, type ApiClient } from "@mailroom/testkit";

export const RPD = "bounces.feedback.test";

export interface RelayedMessage {
  raw: Buffer;
  mailFrom: string;
  rcptTo: string[];
  /** The id this relay answered with (`250 Ok <id>`, as Amazon SES does). */
  providerId: string;
}

/** A relay that keeps what it gets and answers like SES, so notifications can name its ids. */
export async function startRelay() {
  const messages: RelayedMessage[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    hideDSN: false,
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const providerId = `0100${randomBytes(8).toString("hex")}-${randomBytes(4).toString("hex")}-000000`;
        messages.push({
          raw: Buffer.concat(chunks),
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          providerId,
        });
        callback(null, `Ok ${providerId}`);
      });
    },
  });
  server.on("error", () => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to: (address: string) =>
      waitFor(() => messages.find((m) => m.rcptTo.includes(address)), { timeoutMs: 15_000, what: `a message to ${address}` }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Gateway, contacts and sending of their own, with the relay above, a DNS server, a known inbound
 * SMTP port and DSN-driven delivery (`SMTP_DSN=true`).
 */
export async function startFeedbackPlatform(env: Record<string, string> = {}) {
  const relay = await startRelay();
  const platform = new Platform({ services: ["gateway", "contacts", "sending"], env: {} });
  const dataDir = join(REPO_ROOT, ".mailroom", "test-data", platform.prefix);
  mkdirSync(dataDir, { recursive: true });
  const zonesFile = join(dataDir, "zones.json");
  const dns = await startDnsServer({ zonesFile });
  const inboundPort = await freePort();
  Object.assign(platform.env, {
    SMTP_URL: relay.url,
    SMTP_DSN: "true",
    DNS_SERVER: dns.address,
    RETURN_PATH_DOMAIN: RPD,
    INBOUND_SMTP_PORT: String(inboundPort),
    INBOUND_SMTP_HOST: "127.0.0.1",
    ...env,
  });
  try {
    await platform.start();
  } catch (err) {
    await platform.destroy();
    await relay.close();
    await dns.stop();
    throw err;
  }
  return {
    platform,
    relay,
    dns,
    zonesFile,
    dataDir,
    inboundPort,
    async project(name = "feedback") {
      const p = await platform.createProject(name);
      return { ...p, api: apiClient(platform.url, p.secretKey), anon: apiClient(platform.url) };
    },
    async destroy() {
      await platform.destroy();
      await relay.close();
      await dns.stop();
    },
  };
}

/** Hands a raw message to an SMTP server the way a reporting MTA would (null sender for reports). */
export async function deliver(port: number, to: string[], raw: string | Buffer, from = "") {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail({ envelope: { from, to }, raw });
  } finally {
    transport.close();
  }
}

const CRLF = (s: string) => s.replace(/\r?\n/g, "\r\n");

/**
 * An RFC 3464 delivery status notification about one of our messages, sent to `verp` (the envelope
 * sender the relay saw, or a forged one).
 */
export function dsn(o: { emailId: string; verp: string; to: string; action: string; status: string; envelopeId?: string; messageId?: string }) {
  const id = `<dsn-${randomBytes(6).toString("hex")}@mta.example>`;
  return CRLF(`From: Mail Delivery System <MAILER-DAEMON@mta.example>
To: ${o.verp}
Subject: Delivery Status Notification
Message-ID: ${id}
Date: ${new Date().toUTCString()}
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mta.example.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mta.example
Original-Envelope-Id: ${o.envelopeId ?? o.emailId}
Arrival-Date: ${new Date().toUTCString()}

Final-Recipient: rfc822; ${o.to}
Original-Recipient: rfc822;${o.to}
Action: ${o.action}
Status: ${o.status}
Diagnostic-Code: smtp; ${o.status.startsWith("5") ? "550 5.1.1 User unknown" : "250 2.0.0 Ok"}

--b1
Content-Type: text/rfc822-headers

From: sender@example.com
To: ${o.to}
Subject: hello
Message-ID: ${o.messageId ?? `<${o.emailId}@${RPD}>`}

--b1--
`);
}

/**
 * An RFC 5965 abuse report about one of our messages. `mailFrom` is its Original-Mail-From (left out
 * when null), `returnPath` the Return-Path of the returned headers (none when absent).
 */
export function arf(o: { emailId: string; to: string; mailFrom: string | null; returnPath?: string }) {
  return CRLF(`From: <fbl@isp.example>
To: fbl@${RPD}
Subject: Abuse report
Message-ID: <arf-${randomBytes(6).toString("hex")}@isp.example>
Date: ${new Date().toUTCString()}
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="b2"

--b2
Content-Type: text/plain; charset=us-ascii

This is an email abuse report for an email message received from IP 192.0.2.1.

--b2
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: ISP-FBL/1.0
Version: 1
${o.mailFrom === null ? "" : `Original-Mail-From: <${o.mailFrom}>\n`}Original-Rcpt-To: <${o.to}>
Arrival-Date: ${new Date().toUTCString()}

--b2
Content-Type: text/rfc822-headers

${o.returnPath ? `Return-Path: <${o.returnPath}>\n` : ""}From: sender@example.com
To: ${o.to}
Subject: hello
Message-ID: <${o.emailId}@${RPD}>

--b2--
`);
}

/** The value of one sample of a Prometheus metric on a service's /metrics (0 when absent). */
export async function metricValue(opsPort: number, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const sample = /^[^{]+\{([^}]*)\} (\S+)$/.exec(line);
    if (!sample) continue;
    const has = Object.entries(labels).every(([k, v]) => sample[1]!.includes(`${k}="${v}"`));
    if (has) return Number(sample[2]);
  }
  return 0;
}

/** One transactional email; resolves with its id once the relay took it and the record says so. */
export async function sendAndWait(api: ApiClient, o: { from: string; to: string; body?: string; tracking?: boolean }) {
  const res = await api.post("/v1/send", { to: o.to, from: o.from, subject: "Hello", body: o.body ?? "<p>Hello</p>", ...(o.tracking === undefined ? {} : { tracking: o.tracking }) });
  if (res.status !== 200) throw new Error(`send: ${res.status} ${JSON.stringify(res.body)}`);
  const emailId: string = res.body.data.emails[0].email;
  const contactId: string = res.body.data.emails[0].contact.id;
  const record = await waitFor(
    async () => {
      const r = await api.get(`/emails/${emailId}`);
      return r.body.status !== "QUEUED" ? r.body : null;
    },
    { timeoutMs: 15_000, what: `email ${emailId} to leave QUEUED` },
  );
  return { emailId, contactId, record };
}
