/**
 * Internal traffic authenticated (decisions.md §12), on a real nats-server run with the permissions
 * the deployments render (natsAuthorizationConf): every service of a platform connects as its own
 * user, an API request crosses services through it, and the server refuses what the catalog does
 * not allow: an anonymous or wrongly authenticated client, a service calling an operation it does
 * not call, answering another service's operations, reading another service's replies, or writing
 * to a stream it does not own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { SERVICE_NAMES, natsAuthorizationConf, natsUser, wireNames, type ServiceName } from "@mailroom/contracts";
import { natsConnectOptions } from "@mailroom/kit";
import { startMailbox } from "@mailroom/devmailbox";
import { Platform, apiClient, freePort, runCli, runPrefix, sinkMessages, waitFor } from "@mailroom/testkit";

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server";

const prefix = runPrefix("auth");
const names = wireNames(prefix);
const passwords = Object.fromEntries(SERVICE_NAMES.map((s) => [s, randomBytes(24).toString("hex")])) as Record<ServiceName, string>;
const credentials = (s: ServiceName) => ({ NATS_USER: natsUser(prefix, s), NATS_PASSWORD: passwords[s] });

let dir: string;
let server: ChildProcess | undefined;
let natsUrl: string;
let platform: Platform | undefined;
let mailbox: Awaited<ReturnType<typeof startMailbox>> | undefined;
const killServer = () => server?.kill("SIGKILL");

/** A nats-server of this file's own, with JetStream and the per-service users, on free ports. */
async function startNatsServer(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), "mailroom-nats-auth-"));
  const [port, monitor] = [await freePort(), await freePort()];
  const conf = join(dir, "nats.conf");
  writeFileSync(
    conf,
    [
      `listen: "127.0.0.1:${port}"`,
      `http: "127.0.0.1:${monitor}"`,
      `jetstream { store_dir: ${JSON.stringify(join(dir, "js"))} }`,
      natsAuthorizationConf(prefix, (s) => JSON.stringify(passwords[s])),
    ].join("\n"),
  );
  let stderr = "";
  server = spawn(NATS_SERVER, ["-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  server.stderr!.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  process.once("exit", killServer);
  natsUrl = `nats://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (server!.exitCode !== null) throw new Error(`nats-server exited ${server!.exitCode}: ${stderr}`);
      return (await fetch(`http://127.0.0.1:${monitor}/healthz`).catch(() => null))?.status === 200;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: "nats-server with authorization" },
  );
}

/** A client that authenticates as a service would (its user, its inbox prefix), and its errors. */
async function connectAs(service: ServiceName): Promise<{ nc: NatsConnection; errors: Error[] }> {
  const nc = await connect(natsConnectOptions({ NODE_ENV: "test", NATS_URL: natsUrl, NATS_PREFIX: prefix, service, ...credentials(service) }, `test-${service}`));
  const errors: Error[] = [];
  (async () => {
    for await (const s of nc.status()) if (s.type === "error") errors.push(s.error);
  })().catch(() => undefined);
  return { nc, errors };
}

const violation = (operation: "publish" | "subscription", subject: string) =>
  expect.objectContaining({ name: "PermissionViolationError", operation, subject });

beforeAll(async () => {
  await startNatsServer();
  mailbox = await startMailbox({ smtpPort: 0, httpPort: 0 });
  platform = new Platform({
    prefix,
    env: { NATS_URL: natsUrl, SMTP_URL: mailbox.smtpUrl },
    serviceEnv: Object.fromEntries(SERVICE_NAMES.map((s) => [s, credentials(s)])),
  });
  await platform.start();
}, 60_000);

afterAll(async () => {
  await platform?.destroy();
  await mailbox?.stop();
  killServer();
  process.removeListener("exit", killServer);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("NATS with a user per service", () => {
  it("runs every service as its own user, and API requests cross services", async () => {
    const project = await platform!.createProject("nats-auth");
    const domain = `auth-${randomBytes(4).toString("hex")}.mailroom.test`;
    // The operator CLI speaks as the gateway: gateway → sending.domains.forceVerify.
    await runCli(["domains", "verify", "--project", project.id, "--domain", domain], { ...platform!.env, ...credentials("gateway") });

    const api = apiClient(platform!.url, project.secretKey);
    const to = `ada-${randomBytes(4).toString("hex")}@example.com`;
    // gateway → sending.send; sending → contacts.upsertMany; sending → its SEND_JOBS stream → SMTP.
    const sent = await api.post("/v1/send", { to, from: `hello@${domain}`, subject: "Hello", body: "<p>Hi</p>" });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const [message] = await waitFor(async () => {
      const messages = await sinkMessages(mailbox!.webUrl, [to]);
      return messages.length ? messages : null;
    }, { timeoutMs: 20_000, what: `the email to ${to}` });
    expect(message!.subject).toBe("Hello");
    const contacts = await api.get("/contacts");
    expect(contacts.status).toBe(200);
    expect(JSON.stringify(contacts.body)).toContain(to);

    // Past NATS's max_payload (1 MB) the request travels through the blob store: the gateway writes
    // it, the sending service reads and deletes it, each as its own user.
    const big = `big-${randomBytes(4).toString("hex")}@example.com`;
    const content = randomBytes(1_200_000).toString("base64");
    const attachment = { filename: "big.bin", contentType: "application/octet-stream", content };
    const bigSent = await api.post("/v1/send", { to: big, from: `hello@${domain}`, subject: "Big", body: "<p>Big</p>", attachments: [attachment] });
    expect(bigSent.status, JSON.stringify(bigSent.body)).toBe(200);
    await waitFor(async () => (await sinkMessages(mailbox!.webUrl, [big])).length > 0, { timeoutMs: 20_000, what: `the email to ${big}` });
  });

  it("refuses a client without credentials or with a wrong password", async () => {
    await expect(connect({ servers: natsUrl, timeout: 5000 })).rejects.toMatchObject({ name: "AuthorizationError" });
    await expect(connect({ servers: natsUrl, timeout: 5000, user: natsUser(prefix, "gateway"), pass: passwords.verify })).rejects.toMatchObject({
      name: "AuthorizationError",
    });
  });

  it("lets a service call the operations it calls, and no other", async () => {
    const { nc, errors } = await connectAs("campaigns");
    try {
      // campaigns → contacts.get is in its list: the contacts service answers (with its own error).
      const allowed = await nc.request(names.rpc("contacts.get"), JSON.stringify({}), { timeout: 10_000 });
      expect(allowed.json<{ ok: boolean }>()).toMatchObject({ ok: false, error: { error: "VALIDATION_ERROR" } });
      // contacts.list is an API route: only the gateway may send it, with the key's project.
      const list = names.rpc("contacts.list");
      await expect(nc.request(list, JSON.stringify({ projectId: "any" }), { timeout: 10_000 })).rejects.toMatchObject({ cause: violation("publish", list) });
      // Writing a delivery job directly would skip the sending service's checks.
      const job = names.subjects.sendJob("any");
      nc.publish(job, "{}");
      const batch = names.rpcBatch("sending.send");
      nc.publish(batch, "{}");
      await nc.flush();
      await waitFor(() => errors.length >= 2, { timeoutMs: 5000, what: "the server's permission errors" });
      expect(errors).toEqual(expect.arrayContaining([violation("publish", job), violation("publish", batch)]));
    } finally {
      await nc.close();
    }
  });

  it("keeps a service from answering another's operations or reading another's replies", async () => {
    const { nc } = await connectAs("verify");
    try {
      for (const subject of [names.rpc("contacts.get"), `_INBOX.${prefix}.gateway.>`, names.streams.events.subjects[0]!]) {
        const sub = nc.subscribe(subject);
        const ended = (async () => {
          for await (const _ of sub) {
            // never delivered
          }
        })();
        await expect(ended).rejects.toEqual(violation("subscription", subject));
      }
    } finally {
      await nc.close();
    }
  });
});
