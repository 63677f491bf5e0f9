import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { connect as netConnect, type Socket } from "node:net";
import { generate } from "selfsigned";
import { expect } from "vitest";
import { startMailbox } from "@mailroom/devmailbox";
import { Platform, REPO_ROOT, addZones, apiClient, freePort, sinkMessages, startDnsServer, waitFor, type ApiClient } from "@mailroom/testkit";

const MB = 1024 * 1024;

/** A certificate for `localhost` and 127.0.0.1, as `npm start` makes one for development. */
export async function selfSignedCertificate() {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keySize: 2048,
    extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * Gateway, contacts and sending of their own with the SMTP relay on (both listeners, the certificate
 * given as PEM text), an SMTP sink of their own and a DNS server for domain verification. Sending
 * takes attachments up to the relay's 25 MB (its /v1/send default is 10 MB, api-spec "Limits").
 */
export async function startRelayPlatform(env: Record<string, string> = {}) {
  const tls = await selfSignedCertificate();
  const mailbox = await startMailbox({ smtpPort: 0, httpPort: 0, maxMessages: 10_000 });
  const platform = new Platform({ services: ["gateway", "contacts", "sending"] });
  const dataDir = join(REPO_ROOT, ".mailroom", "test-data", platform.prefix);
  mkdirSync(dataDir, { recursive: true });
  const zonesFile = join(dataDir, "zones.json");
  const dns = await startDnsServer({ zonesFile });
  const [port, tlsPort] = [await freePort(), await freePort()];
  Object.assign(platform.env, {
    SMTP_URL: mailbox.smtpUrl,
    DNS_SERVER: dns.address,
    RETURN_PATH_DOMAIN: "bounces.relay.test",
    SMTP_RELAY_HOST: "127.0.0.1",
    SMTP_RELAY_PORT: String(port),
    SMTP_RELAY_TLS_PORT: String(tlsPort),
    SMTP_RELAY_TLS_CERT: tls.cert,
    SMTP_RELAY_TLS_KEY: tls.key,
    SEND_MAX_ATTACHMENT_BYTES: String(25 * MB),
    ...env,
  });
  try {
    await platform.start();
  } catch (err) {
    await mailbox.stop();
    await dns.stop();
    throw err;
  }
  return {
    platform,
    port,
    tlsPort,
    cert: tls.cert,
    zonesFile,
    /** Messages in this platform's sink to `to`, once there are `count`. */
    messagesTo: (to: string, count = 1, timeoutMs = 20_000) =>
      waitFor(
        async () => {
          const mine = await sinkMessages(mailbox.webUrl, [to]);
          return mine.length >= count ? mine : null;
        },
        { timeoutMs, intervalMs: 100, what: `${count} message(s) to ${to}` },
      ),
    sink: (to: string) => sinkMessages(mailbox.webUrl, [to]),
    raw: async (id: string) => Buffer.from(await (await fetch(new URL(`/messages/${id}/raw`, mailbox.webUrl))).arrayBuffer()),
    dnsAddress: dns.address,
    async project(name = "relay") {
      const project = await platform.createProject(name);
      return { ...project, api: apiClient(platform.url, project.secretKey) };
    },
    async destroy() {
      await platform.destroy();
      await mailbox.stop();
      await dns.stop();
    },
  };
}

export const uniqueDomain = (tag = "d") => `${tag}-${randomBytes(5).toString("hex")}.relay.test`;
export const uniqueAddress = (tag = "r") => `${tag}-${randomBytes(5).toString("hex")}@example.com`;

/** A sending domain, its DKIM record published on the test DNS server, verified. */
export async function verifiedDomain(api: ApiClient, zonesFile: string, domain = uniqueDomain()) {
  const created = await api.post("/domains", { domain });
  expect(created.status).toBe(201);
  const dkim = created.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
  addZones(zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
  const verified = await api.post(`/domains/${created.body.id}/verify`);
  expect(verified.body.status).toBe("VERIFIED");
  return domain;
}

/**
 * A line-by-line SMTP dialogue for what nodemailer will not do on purpose (AUTH before STARTTLS, a
 * 51st RCPT TO without sending the message): each `say` writes a command and resolves with the
 * server's whole reply (multi-line replies joined).
 */
export async function dialogue(port: number, opts: { tls?: boolean } = {}) {
  const socket: Socket = opts.tls
    ? tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false })
    : netConnect({ host: "127.0.0.1", port });
  let buffer = "";
  const waiting: Array<(reply: string) => void> = [];
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    for (;;) {
      // a reply ends with a line whose code is followed by a space (RFC 5321 §4.2)
      const end = /^\d{3} [^\r\n]*\r\n/m.exec(buffer);
      if (!end) return;
      const upTo = end.index + end[0].length;
      const reply = buffer.slice(0, upTo).trim();
      buffer = buffer.slice(upTo);
      waiting.shift()?.(reply);
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const greeting = await next();
  return {
    greeting,
    say: (line: string) => {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    close: () => socket.destroy(),
  };
}

/** AUTH PLAIN's argument for a username and password. */
export const plain = (user: string, password: string) => Buffer.from(`\0${user}\0${password}`).toString("base64");
