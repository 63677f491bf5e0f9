#!/usr/bin/env node
// `npm start`: the whole platform on one machine. Installs and builds if needed, makes sure NATS
// (JetStream), PostgreSQL and Redis answer (bringing them up on Debian as root), runs the
// development mailbox when SMTP_URL is unset, migrates, starts the six services as separate
// processes, creates a demo project once and prints how to use it (the API and the SMTP relay, with a
// self-signed certificate made once). Ctrl-C stops everything.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { ensureInfra } from "./infra.mjs";
import { requireNodeFloor } from "./node-version.mjs";

const SERVICES = ["gateway", "contacts", "sending", "campaigns", "workflows", "verify"];
const OPS_PORTS = { gateway: 9100, contacts: 9101, sending: 9102, campaigns: 9103, workflows: 9104, verify: 9105 };
const DATA_DIR = process.env.MAILROOM_DATA_DIR ?? ".mailroom";
const PORT = Number(process.env.PORT ?? 8080);
const DEMO_DOMAIN = "example.com";
// The relay's development ports: 587 and 465 need root, and may be taken by a local MTA.
const RELAY_PORT = process.env.SMTP_RELAY_PORT ?? "2587";
const RELAY_TLS_PORT = process.env.SMTP_RELAY_TLS_PORT ?? "2465";

const say = (msg) => process.stdout.write(`\x1b[1mmailroom\x1b[0m ${msg}\n`);
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

requireNodeFloor();
if (!existsSync("node_modules/.package-lock.json")) {
  say("installing dependencies…");
  run("npm", ["install", "--no-audit", "--no-fund"]);
}
say("building…");
run("npx", ["turbo", "run", "build", "--output-logs=errors-only"]);

const env = {
  ...process.env,
  NATS_URL: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
  DATABASE_URL: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${PORT}`,
  PORT: String(PORT),
  MAILROOM_DATA_DIR: DATA_DIR,
  MAILROOM_EXIT_WITH_PARENT: "1",
};
try {
  for (const s of await ensureInfra({ natsUrl: env.NATS_URL, databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL })) {
    say(`${s.name} ok (${s.detail ?? s.url})`);
  }
} catch (err) {
  console.error(String(err.message ?? err));
  process.exit(1);
}

mkdirSync(DATA_DIR, { recursive: true });
// One secret for every process, generated once and kept, so signed links survive restarts.
const secretFile = `${DATA_DIR}/secret`;
if (!env.MAILROOM_SECRET) {
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600 });
  env.MAILROOM_SECRET = readFileSync(secretFile, "utf8").trim();
}

// The SMTP relay's certificate: self-signed for localhost, made once and kept beside the secret.
if (!env.SMTP_RELAY_TLS_CERT || !env.SMTP_RELAY_TLS_KEY) {
  const certFile = `${DATA_DIR}/relay-cert.pem`;
  const keyFile = `${DATA_DIR}/relay-key.pem`;
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const { generate } = await import("selfsigned");
    const pems = await generate([{ name: "commonName", value: "localhost" }], {
      keySize: 2048,
      days: 825,
      extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }] }],
    });
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    writeFileSync(certFile, pems.cert);
  }
  Object.assign(env, { SMTP_RELAY_TLS_CERT: certFile, SMTP_RELAY_TLS_KEY: keyFile });
}
Object.assign(env, { SMTP_RELAY_PORT: RELAY_PORT, SMTP_RELAY_TLS_PORT: RELAY_TLS_PORT });

let mailbox;
if (!env.SMTP_URL) {
  const { startMailbox } = await import("../packages/devmailbox/dist/index.js");
  mailbox = await startMailbox({
    smtpPort: Number(process.env.DEVMAILBOX_SMTP_PORT ?? 1025),
    httpPort: Number(process.env.DEVMAILBOX_HTTP_PORT ?? 8025),
  });
  env.SMTP_URL = mailbox.smtpUrl;
}

say("migrating…");
run("node", ["services/gateway/dist/cli.js", "migrate"], { env });

// the node flags every launcher runs a service with (the file says why)
const NODE_FLAGS = JSON.parse(readFileSync("packages/kit/node-flags.json", "utf8")).flags;
const children = new Map();
let stopping = false;
for (const name of SERVICES) {
  const child = spawn(process.execPath, [...NODE_FLAGS, `services/${name}/dist/main.js`], { env, stdio: ["ignore", "pipe", "pipe"] });
  const prefix = `\x1b[36m${name.padEnd(9)}\x1b[0m│ `;
  const pipe = (stream, out) => {
    let buf = "";
    stream.on("data", (d) => {
      buf += d;
      const lines = buf.split("\n");
      buf = lines.pop();
      for (const line of lines) out.write(`${prefix}${line}\n`);
    });
  };
  pipe(child.stdout, process.stdout);
  pipe(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping the platform`);
      void stop(1);
    }
  });
  children.set(name, child);
}

async function ready(name) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${OPS_PORTS[name]}/readyz`).catch(() => null);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} did not become ready within 60 s`);
}
try {
  await Promise.all(SERVICES.map(ready));
} catch (err) {
  say(String(err.message));
  await stop(1);
}

// The demo project is created once and remembered; its domain is marked verified by the operator
// override, because a laptop has no public DNS to publish DKIM records in.
const demoFile = `${DATA_DIR}/demo.json`;
let demo = existsSync(demoFile) ? JSON.parse(readFileSync(demoFile, "utf8")) : null;
if (demo) {
  const probe = await fetch(`http://127.0.0.1:${PORT}/templates`, { headers: { authorization: `Bearer ${demo.secretKey}` } });
  if (probe.status === 401) demo = null; // the database was reset since
}
if (!demo) {
  const out = spawnSync("node", ["services/gateway/dist/cli.js", "projects", "create", "--name", "Demo", "--json"], { env, encoding: "utf8" });
  if (out.status !== 0) {
    say(`could not create the demo project: ${out.stderr}`);
    await stop(1);
  }
  demo = JSON.parse(out.stdout);
  writeFileSync(demoFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
}
// The demo user, owner of the demo project, made once: its password is kept beside demo.json (and
// made again, with the user, when the database was reset since).
const demoUserFile = `${DATA_DIR}/demo-user.json`;
let demoUser = existsSync(demoUserFile) ? JSON.parse(readFileSync(demoUserFile, "utf8")) : null;
if (demoUser) {
  const probe = await fetch(`http://127.0.0.1:${PORT}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: demoUser.email, password: demoUser.password }),
  });
  if (probe.status !== 200 || !(await probe.json()).projects.some((p) => p.id === demo.id)) demoUser = null;
}
if (!demoUser) {
  const email = "demo@mailroom.local";
  const password = randomBytes(18).toString("base64url");
  const args = ["users", "create", "--email", email, "--name", "Demo", "--project", demo.id, "--role", "owner", `--password=${password}`, "--json"]; // one argument: a password may start with "-"
  const out = spawnSync("node", ["services/gateway/dist/cli.js", ...args], { env, encoding: "utf8" });
  if (out.status === 0) {
    demoUser = { email, password };
    writeFileSync(demoUserFile, JSON.stringify(demoUser, null, 2), { mode: 0o600 });
  } else say(`note: could not create the demo user: ${out.stderr.trim()}`);
}

const verified = spawnSync("node", ["services/gateway/dist/cli.js", "domains", "verify", "--project", demo.id, "--domain", DEMO_DOMAIN], { env, encoding: "utf8" });
if (verified.status !== 0) say(`note: could not verify ${DEMO_DOMAIN} for the demo project: ${verified.stderr.trim()}`);

const base = `http://localhost:${PORT}`;
console.log(`
  Mailroom is running.

  Dashboard       ${base}/app/
  API             ${base}
  API reference   ${base}/docs   (OpenAPI: ${base}/openapi.json)
  ${mailbox ? `Dev mailbox     ${mailbox.webUrl}   (every email Mailroom sends lands here)` : `Outgoing SMTP   ${env.SMTP_URL.replace(/\/\/[^@]*@/, "//***@")}`}

  Demo project    ${demo.id}
  Secret key      ${demo.secretKey}
  Public key      ${demo.publicKey}
${demoUser ? `  Dashboard user  ${demoUser.email}\n  Password        ${demoUser.password}\n` : ""}
  Send an email:

  curl -X POST ${base}/v1/send \\
    -H "Authorization: Bearer ${demo.secretKey}" \\
    -H "Content-Type: application/json" \\
    -d '{"to":"ada@example.com","from":"hello@${DEMO_DOMAIN}","subject":"Hello from Mailroom","body":"<p>Hi {{ name ?? \\"there\\" }}!</p>","data":{"name":"Ada"}}'

  Send over SMTP (the relay; the certificate is self-signed: ${env.SMTP_RELAY_TLS_CERT}):

  Host            localhost
  Ports           ${RELAY_PORT} (STARTTLS), ${RELAY_TLS_PORT} (implicit TLS)
  Username        anything
  Password        ${demo.secretKey}
  From            any address @${DEMO_DOMAIN}

  Press Ctrl-C to stop.
`);

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  say("stopping…");
  await Promise.all(
    [...children.values()].map(
      (child) =>
        new Promise((resolve) => {
          const t = setTimeout(() => child.kill("SIGKILL"), 12_000);
          child.once("exit", () => (clearTimeout(t), resolve()));
          child.kill("SIGTERM");
        }),
    ),
  );
  await mailbox?.stop();
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
