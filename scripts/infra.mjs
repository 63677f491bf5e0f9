// Makes sure NATS (with JetStream), PostgreSQL and Redis answer before `npm start` / `npm test`.
// Node built-ins only: this runs on a fresh clone, before `npm install`.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const DEFAULTS = {
  natsUrl: "nats://127.0.0.1:4222",
  databaseUrl: "postgres://postgres@127.0.0.1:5432/postgres",
  redisUrl: "redis://127.0.0.1:6379",
};

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);
const START_TIMEOUT_MS = 30_000;

/**
 * A probe answers "up", "down" (nothing listens: starting a server can help) or "wrong"
 * (something answers but not as needed: starting another server cannot help).
 */
function talk(target, { send, parse, timeoutMs }) {
  return new Promise((resolve) => {
    const socket = target.path
      ? net.connect({ path: target.path })
      : target.tls
        ? tls.connect({ host: target.host, port: target.port, servername: target.host, rejectUnauthorized: false })
        : net.connect({ host: target.host, port: target.port });
    let received = Buffer.alloc(0);
    let connected = false;
    const finish = (result) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish(connected ? { state: "wrong", detail: `no answer within ${timeoutMs} ms` } : { state: "down", detail: "connection timed out" }),
      timeoutMs,
    );
    socket.once(target.tls ? "secureConnect" : "connect", () => {
      connected = true;
      if (send) socket.write(send);
    });
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      const result = parse(received);
      if (result) finish(result);
    });
    socket.on("error", (error) => finish({ state: connected ? "wrong" : "down", detail: error.code ?? error.message }));
    socket.on("close", () => finish({ state: connected ? "wrong" : "down", detail: "connection closed without an answer" }));
  });
}

function firstLine(buffer) {
  const end = buffer.indexOf("\r\n");
  return end === -1 ? null : buffer.subarray(0, end).toString("utf8");
}

const SERVICES = {
  nats: {
    name: "NATS",
    variable: "NATS_URL",
    defaultPort: 4222,
    apt: "nats-server",
    // The server speaks first: `INFO {json}\r\n`. JetStream shows up there only when enabled.
    probe: (target, timeoutMs) =>
      talk(target, {
        timeoutMs,
        parse: (buffer) => {
          const line = firstLine(buffer);
          if (line === null) return buffer.length > 64 * 1024 ? { state: "wrong", detail: "not a NATS server" } : null;
          if (!line.startsWith("INFO ")) return { state: "wrong", detail: "not a NATS server" };
          if (!/"jetstream"\s*:\s*true/.test(line)) return { state: "wrong", detail: "JetStream is not enabled", noJetStream: true };
          return { state: "up", detail: "JetStream enabled" };
        },
      }),
    localHelp: (port) =>
      `Install nats-server (https://docs.nats.io/running-a-nats-service/introduction/installation) and start it with \`nats-server -js${port === 4222 ? "" : ` -p ${port}`}\``,
  },
  postgres: {
    name: "PostgreSQL",
    variable: "DATABASE_URL",
    defaultPort: 5432,
    apt: "postgresql",
    // SSLRequest (length 8, code 80877103): every PostgreSQL answers it with one byte, S or N,
    // and closing right after the answer leaves nothing in the server log.
    probe: (target, timeoutMs) =>
      talk(target, {
        timeoutMs,
        send: Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]),
        parse: (buffer) =>
          buffer[0] === 0x53 || buffer[0] === 0x4e ? { state: "up", detail: "accepting connections" } : { state: "wrong", detail: "not a PostgreSQL server" },
      }),
    localHelp: () =>
      "Install PostgreSQL (https://www.postgresql.org/download/), start it and allow local connections as `postgres` (e.g. `sudo apt-get install -y postgresql && sudo pg_ctlcluster <version> main start`)",
  },
  redis: {
    name: "Redis",
    variable: "REDIS_URL",
    defaultPort: 6379,
    apt: "redis-server",
    // -NOAUTH means a password-protected server is alive; the services authenticate from the URL.
    probe: (target, timeoutMs) =>
      talk(target, {
        timeoutMs,
        send: "PING\r\n",
        parse: (buffer) => {
          const line = firstLine(buffer);
          if (line === null) return null;
          if (line.startsWith("+PONG") || line.startsWith("-NOAUTH")) return { state: "up", detail: "PONG" };
          return { state: "wrong", detail: `unexpected answer ${JSON.stringify(line.slice(0, 80))}` };
        },
      }),
    localHelp: (port) =>
      `Install Redis (https://redis.io/docs/latest/operate/oss_and_stack/install/) and start it with \`redis-server${port === 6379 ? "" : ` --port ${port}`}\``,
  },
};

function targetsOf(kind, rawUrl) {
  const service = SERVICES[kind];
  // NATS_URL may list several servers; the client needs any one of them.
  const urls = kind === "nats" ? rawUrl.split(",").map((u) => u.trim()).filter(Boolean) : [rawUrl.trim()];
  return urls.map((text) => {
    const url = new URL(text.includes("://") ? text : `${kind}://${text}`);
    const port = Number(url.port) || service.defaultPort;
    const socketDir = url.searchParams.get("host");
    const host = url.hostname || socketDir || "localhost";
    return {
      display: redact(url),
      host: host.replace(/^\[|\]$/g, ""),
      port,
      tls: url.protocol === "rediss:" || url.protocol === "tls:",
      path: host.startsWith("/") ? `${host}/.s.PGSQL.${port}` : undefined,
      local: LOCAL_HOSTS.has(host),
    };
  });
}

function redact(url) {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = "***";
  return copy.href;
}

async function probeAny(kind, targets, timeoutMs) {
  let result;
  for (const target of targets) {
    result = { ...(await SERVICES[kind].probe(target, timeoutMs)), target };
    if (result.state === "up") break;
  }
  return result;
}

function explain(kind, result, { debian, root }) {
  const { name, variable } = SERVICES[kind];
  const where = `${name} at ${result.target.display}`;
  if (result.noJetStream) {
    return `${where} is running without JetStream. Restart it with JetStream enabled (\`nats-server -js\`), or set ${variable} to a server that has it.`;
  }
  if (result.state === "wrong") {
    return `${where} does not answer like ${name} (${result.detail}). Free that port or set ${variable}.`;
  }
  if (result.startError) return `Could not start ${where}: ${result.startError}\nFix that, or set ${variable}.`;
  if (result.started) {
    return `${where} was started but did not answer within ${START_TIMEOUT_MS / 1000} s (${result.detail}); check its log, or set ${variable}.`;
  }
  if (!result.target.local) {
    return `${where} is not reachable (${result.detail}). Start it or check the network, or set ${variable}.`;
  }
  const standardPort = result.target.port === SERVICES[kind].defaultPort;
  const sudo = debian && !root && standardPort ? " (or run `sudo node scripts/infra.mjs` once to install and start it)" : "";
  return `${where} is not reachable. ${SERVICES[kind].localHelp(result.target.port)}${sudo}, or set ${variable}.`;
}

function run(command, args, log) {
  log(`$ ${command} ${args.join(" ")}`);
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const tail = `${stdout}${stderr}`.trim().split("\n").slice(-15).join("\n");
      reject(new Error(`\`${command} ${args.join(" ")}\` failed (${error.code ?? error.message}):\n${tail}`));
    });
  });
}

async function aptInstall(packages, log) {
  const args = ["install", "-y", "--no-install-recommends", ...packages];
  try {
    await run("apt-get", args, log);
  } catch {
    // A fresh container has no package lists yet.
    await run("apt-get", ["update"], log);
    await run("apt-get", args, log);
  }
}

function postgresVersion() {
  const versions = existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql").filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  return versions.sort((a, b) => Number(b) - Number(a))[0];
}

const isInstalled = {
  nats: () => existsSync("/usr/sbin/nats-server"),
  postgres: () => postgresVersion() !== undefined,
  redis: () => existsSync("/usr/bin/redis-server"),
};

// Only for a cluster we just installed: an existing installation's auth rules are its owner's choice.
function trustLocalConnections(version) {
  const file = `/etc/postgresql/${version}/main/pg_hba.conf`;
  const rules = "host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust\n";
  const current = readFileSync(file, "utf8");
  if (!current.startsWith(rules)) writeFileSync(file, `# added by mailroom scripts/infra.mjs for local development\n${rules}${current}`);
}

const start = {
  nats: ({ port }, log) => {
    mkdirSync("/var/lib/nats-server", { recursive: true });
    return run("start-stop-daemon", [
      "--start", "--oknodo", "--background", "--make-pidfile", "--pidfile", "/run/mailroom-nats.pid",
      "--exec", "/usr/sbin/nats-server", "--",
      "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", "/var/lib/nats-server", "-l", "/var/log/nats-server.log",
    ], log);
  },
  postgres: async (target, log, { installed }) => {
    const version = postgresVersion();
    if (installed) trustLocalConnections(version);
    const action = (await SERVICES.postgres.probe(target, 2000)).state === "up" ? "reload" : "start";
    return run("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", action], log);
  },
  redis: ({ port }, log) =>
    run("redis-server", ["--daemonize", "yes", "--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], log),
};

async function waitUntilUp(kind, target, deadline) {
  for (;;) {
    const result = { ...(await SERVICES[kind].probe(target, 2000)), target };
    if (result.state === "up" || Date.now() > deadline) return result;
    await sleep(500);
  }
}

/**
 * Resolves with one status per server once all three answer. A local server that is down is
 * installed and started when that is safe to do (Debian/Ubuntu, root, `install` not false);
 * anything else rejects with an Error saying what is missing and how to fix it.
 */
export async function ensureInfra({
  natsUrl = DEFAULTS.natsUrl,
  databaseUrl = DEFAULTS.databaseUrl,
  redisUrl = DEFAULTS.redisUrl,
  log = console.log,
  install = true,
  timeoutMs = 2000,
} = {}) {
  const env = { debian: existsSync("/etc/debian_version"), root: process.getuid?.() === 0 };
  const urls = { nats: natsUrl, postgres: databaseUrl, redis: redisUrl };
  const kinds = Object.keys(urls);
  const results = Object.fromEntries(
    await Promise.all(kinds.map(async (kind) => [kind, await probeAny(kind, targetsOf(kind, urls[kind]), timeoutMs)])),
  );

  // Only the standard local ports: a second server on another port would share the first one's
  // data directory (JetStream store, cluster), which corrupts it.
  const fixable = kinds.filter((kind) => {
    const { state, target } = results[kind];
    return state === "down" && target.local && target.port === SERVICES[kind].defaultPort;
  });
  if (fixable.length > 0 && install && env.debian && env.root) {
    const missing = fixable.filter((kind) => !isInstalled[kind]());
    if (missing.length > 0) {
      log(`Installing ${missing.map((kind) => SERVICES[kind].apt).join(" ")} with apt-get…`);
      await aptInstall(missing.map((kind) => SERVICES[kind].apt), log).catch((error) => {
        const variables = missing.map((kind) => SERVICES[kind].variable).join(" / ");
        throw new Error(`${error.message}\nInstall ${missing.map((kind) => SERVICES[kind].apt).join(" ")} yourself, or set ${variables}.`);
      });
    }
    const deadline = Date.now() + START_TIMEOUT_MS;
    await Promise.all(
      fixable.map(async (kind) => {
        const target = results[kind].target;
        log(`Starting ${SERVICES[kind].name} on ${target.host}:${target.port}…`);
        try {
          await start[kind](target, log, { installed: missing.includes(kind) });
        } catch (error) {
          results[kind] = { ...results[kind], startError: error.message };
          return;
        }
        results[kind] = { ...(await waitUntilUp(kind, target, deadline)), started: true };
      }),
    );
  }

  const problems = kinds.filter((kind) => results[kind].state !== "up").map((kind) => explain(kind, results[kind], env));
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return kinds.map((kind) => ({ name: SERVICES[kind].name, url: results[kind].target.display, detail: results[kind].detail }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const statuses = await ensureInfra({
      natsUrl: process.env.NATS_URL || DEFAULTS.natsUrl,
      databaseUrl: process.env.DATABASE_URL || DEFAULTS.databaseUrl,
      redisUrl: process.env.REDIS_URL || DEFAULTS.redisUrl,
    });
    for (const s of statuses) console.log(`${`${s.name}`.padEnd(11)} ${s.url.padEnd(48)} up (${s.detail})`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
