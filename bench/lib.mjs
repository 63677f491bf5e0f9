// Shared helpers of the benchmarks. Every benchmark measures its baseline in the same run and
// reports the ratio: this machine is shared and noisy, absolute figures drift, ratios hold.
import autocannon from "autocannon";
import http from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { execFileSync, spawn } from "node:child_process";
import { createPrivateKey } from "node:crypto";
import postgres from "postgres";
import MailComposer from "nodemailer/lib/mail-composer";
import { DATABASE_URL } from "@mailroom/testkit";

export async function load({ url, headers = {}, method = "GET", body, connections = 50, duration = 10, title, ...rest }) {
  // a smoke run shows the load runs, warm-ups included: a second of each is enough for that
  const result = await autocannon({ url, method, headers, body, connections, duration: SMOKE ? Math.min(duration, 1) : duration, title, ...rest });
  return {
    title,
    requestsPerSec: Math.round(result.requests.average),
    // autocannon's percentiles are whole milliseconds; the mean keeps the fraction
    meanMs: +result.latency.average.toFixed(2),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * A helper program of bench/ (responder, hop, baseline) in a process of its own, once it has printed
 * its first line (a port, or that it is ready): `{ line, pid, close() }`. `env` adds to this process's
 * environment; close() stops it with SIGTERM and waits for it to exit.
 */
export async function startHelper(script, args = [], env = {}) {
  const child = spawn(process.execPath, [new URL(`./${script}`, import.meta.url).pathname, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const line = await Promise.race([
    new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d).trim()))),
    exited.then((code) => Promise.reject(new Error(`${script} ${args.join(" ")} exited with ${code} before it was ready`))),
  ]);
  return {
    line,
    pid: child.pid,
    async close() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * A baseline route in a process of its own (bench/baseline.mjs says why, and which kinds there are):
 * `{ url, pid, close() }`, url without a path.
 */
export async function startBaseline(kind, env = {}) {
  const helper = await startHelper("baseline.mjs", [kind], env);
  return { ...helper, url: `http://127.0.0.1:${helper.line}` };
}

/** Peak resident memory of a process (VmHWM), in MB. */
export function peakRssMb(pid) {
  return statusMb(pid, "VmHWM");
}

/** A process's resident memory now, MB (null when it is gone). */
export function rssMb(pid) {
  return statusMb(pid, "VmRSS");
}

function statusMb(pid, field) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

export function machine() {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/**
 * BENCH_SMOKE=1: every benchmark at a tiny size, in seconds, to show it still starts and finishes
 * (`npm test` runs them so: a benchmark nobody runs rots). Its figures mean nothing and go to
 * .mailroom/bench-smoke, never over the recorded ones.
 */
export const SMOKE = process.env.BENCH_SMOKE === "1";

/** A size or count: its variable when set, else the full size, or the smoke size in a smoke run. */
export function size(variable, full, smoke) {
  const given = process.env[variable];
  return given !== undefined && given !== "" ? Number(given) : SMOKE ? smoke : full;
}

/** Where results go: bench/results, a smoke run's folder, or BENCH_RESULTS_DIR (bench:compare's runs). */
export const RESULTS_DIR = process.env.BENCH_RESULTS_DIR || (SMOKE ? ".mailroom/bench-smoke" : "bench/results");

export function writeResult(name, result, markdown) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamped = { name, date: new Date().toISOString(), machine: machine(), ...(SMOKE ? { smoke: true } : {}), ...result };
  writeFileSync(`${RESULTS_DIR}/${name}.json`, `${JSON.stringify(stamped, null, 2)}\n`);
  writeFileSync(`${RESULTS_DIR}/${name}.md`, `## ${name}\n\n${stamped.date} on ${stamped.machine}\n\n${markdown}\n`);
  console.log(markdown);
}

/**
 * `serviceEnv` with BENCH_PROFILE's services (a comma list) profiled: each writes a V8 CPU profile to
 * .mailroom/profiles when it exits (read one with `node scripts/profile-summary.mjs <file>`);
 * BENCH_PROFILE_KIND=heap|promoted|gc profiles allocations or counts collections instead (cpu-profile.cjs).
 */
export function profiled(serviceEnv = {}) {
  const out = { ...serviceEnv };
  const preload = new URL("./cpu-profile.cjs", import.meta.url).pathname;
  for (const name of (process.env.BENCH_PROFILE ?? "").split(",").filter(Boolean)) {
    out[name] = { ...out[name], NODE_OPTIONS: `--require ${preload}`, MAILROOM_SERVICE: name, BENCH_PROFILE_KIND: process.env.BENCH_PROFILE_KIND ?? "" };
  }
  // BENCH_PERF=<services>: JIT symbol maps (/tmp/perf-<pid>.map) for `perf record -p <pid>`, whose
  // samples are on-CPU only; the V8 profile above counts a process preempted mid-write as writing.
  for (const name of (process.env.BENCH_PERF ?? "").split(",").filter(Boolean)) {
    out[name] = { ...out[name], NODE_OPTIONS: `${out[name]?.NODE_OPTIONS ?? ""} --perf-basic-prof`.trim() };
  }
  return out;
}

/**
 * What every benchmark's platform runs with: the services' own default pool of 10 connections (the
 * testkit's 4 exists for test runs that start many platforms against one PostgreSQL; a smoke run
 * takes it too, its platforms sharing PostgreSQL's 100 connections with the fault suite's), quiet logs.
 */
export const BENCH_ENV = {
  LOG_LEVEL: "warn",
  DB_POOL_MAX: process.env.BENCH_DB_POOL ?? (SMOKE ? "4" : "10"),
  // RPC_COALESCE=false runs the platform with one NATS message per request, for comparing.
  ...(process.env.RPC_COALESCE ? { RPC_COALESCE: process.env.RPC_COALESCE } : {}),
};

/** CPU seconds (user + system) a process has used so far; null once it is gone. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * A lean JSON POST over keep-alive node:http, for benchmarks that pace requests themselves: fetch
 * costs the load generator a millisecond or more of CPU per request, and that CPU is taken from the
 * services measured on the same cores. Resolves with the status code.
 */
export function leanPoster(baseUrl, key) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const base = new URL(baseUrl);
  return (path, body) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = http.request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          path,
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
}

/**
 * CPU that processes spend over one measured run: `const m = cpuMeter({ gateway: pid, … });
 * … run …; m.perRequestUs(requests)`, `m.perItemMs(emails)` or `m.seconds()`. The NATS server of this machine is included
 * unless `nats: false`, PostgreSQL with `postgres: true` (every process) or `postgres: <prefix>` (that
 * platform's backends and the server's writers), and the bench process itself as `selfName`. Tells
 * where a ratio is lost, process by process.
 */
export function cpuMeter(pids, { nats = true, postgres = false, selfName = "loadGenerator" } = {}) {
  const all = { ...pids };
  if (nats) {
    try {
      const pid = Number(execFileSync("pgrep", ["-o", "nats-server"]).toString().trim());
      if (pid) all.nats = pid;
    } catch {}
  }
  const read = () => {
    const out = Object.fromEntries(Object.entries(all).map(([k, pid]) => [k, cpuSeconds(pid)]));
    if (postgres) out.postgres = postgresCpuSeconds(typeof postgres === "string" ? postgres : undefined);
    const own = process.cpuUsage();
    out[selfName] = (own.user + own.system) / 1e6;
    return out;
  };
  const before = read();
  const seconds = () => Object.fromEntries(Object.entries(read()).map(([k, v]) => [k, v - before[k]]));
  return {
    seconds,
    perRequestUs: (requests) => Object.fromEntries(Object.entries(seconds()).map(([k, v]) => [k, Math.round((v * 1e6) / requests)])),
    /** CPU ms per item (an email), to two decimals. */
    perItemMs: (items) => Object.fromEntries(Object.entries(seconds()).map(([k, v]) => [k, +((v * 1000) / items).toFixed(2)])),
  };
}

/**
 * Instructions that processes retire over one measured run, counted by `perf stat` where the machine
 * has it (null where not): `const m = instructionMeter({ gateway: pid }); … run …; await
 * m.counts()`. Unlike CPU time, an instruction count does not grow when a neighbour on
 * a shared machine slows the cores down, so it compares two paths of one run more steadily.
 */
export function instructionMeter(pids) {
  const counters = Object.entries(pids).map(([name, pid]) => {
    let out = "";
    const child = spawn("perf", ["stat", "-x", ",", "-e", "instructions", "-p", String(pid)], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (d) => (out += d));
    const done = new Promise((resolve) => {
      child.on("error", () => resolve(null));
      child.on("close", () => {
        const n = Number(out.split("\n").find((l) => l.includes("instructions"))?.split(",")[0]);
        resolve(Number.isFinite(n) && n > 0 ? n : null);
      });
    });
    return { name, child, done };
  });
  return {
    /** Stops counting: instructions per process since the meter started. */
    async counts() {
      for (const c of counters) c.child.kill("SIGINT");
      const counts = await Promise.all(counters.map((c) => c.done));
      return Object.fromEntries(counters.map((c, i) => [c.name, counts[i]]));
    },
  };
}

/**
 * Loads each path in turn, `rounds` times over (A B C A B C …), so a neighbour that slows this shared
 * machine for a while weighs on every path instead of on the one that happened to run then. A path's
 * figures are its median round (by req/s), and every round's req/s is kept; its ratio to the first
 * path (the baseline) is the median of the rounds' ratios. `cpu` and `instructions` (process name →
 * pid) are measured during the path's own rounds only and reported per request (`cpuOptions` as
 * cpuMeter takes them).
 */
export async function alternate(paths, { rounds = 3, duration }) {
  const runs = paths.map(() => []);
  const requests = paths.map(() => 0);
  const cpu = paths.map(() => ({}));
  const instructions = paths.map(() => ({}));
  const ratios = paths.map(() => []);
  /** Adds one round's figures to a path's totals; a process perf could not count stays null. */
  const add = (into, figures) => {
    for (const [k, v] of Object.entries(figures)) into[k] = v === null || into[k] === null ? null : (into[k] ?? 0) + v;
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, path] of paths.entries()) {
      const meter = path.cpu ? cpuMeter(path.cpu, path.cpuOptions) : null;
      const counter = path.instructions ? instructionMeter(path.instructions) : null;
      const result = await path.run(duration);
      runs[i].push(result);
      requests[i] += result.requestsPerSec * duration;
      add(cpu[i], meter?.seconds() ?? {});
      add(instructions[i], (await counter?.counts()) ?? {});
      ratios[i].push(result.requestsPerSec / runs[0][round].requestsPerSec);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const perRequest = (totals, i, scale) =>
    Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v === null ? null : Math.round((v * scale) / requests[i])]));
  return paths.map((path, i) => ({
    // the median round by req/s, with its latencies
    ...runs[i].toSorted((a, b) => a.requestsPerSec - b.requestsPerSec)[Math.floor(runs[i].length / 2)],
    title: path.name,
    rounds: runs[i].map((r) => r.requestsPerSec),
    non2xx: runs[i].reduce((a, r) => a + r.non2xx, 0),
    errors: runs[i].reduce((a, r) => a + r.errors, 0),
    ratio: +median(ratios[i]).toFixed(2),
    roundRatios: ratios[i].map((r) => +r.toFixed(2)),
    cpuUsPerRequest: path.cpu ? perRequest(cpu[i], i, 1e6) : null,
    kiloInstructions: path.instructions ? perRequest(instructions[i], i, 1e-3) : null,
  }));
}

export const formatCpu = (perRequest) => Object.entries(perRequest).map(([k, v]) => `${k} ${v}`).join(", ");

/**
 * CPU seconds used so far by the PostgreSQL processes of this machine: with `prefix` (a platform's),
 * the backends serving that platform's databases (their process title names the database) and the
 * server's own writers, so another run's queries on the same server are not counted; without it,
 * every PostgreSQL process.
 */
export function postgresCpuSeconds(prefix) {
  let total = 0;
  for (const pid of execFileSync("pgrep", ["-x", "postgres"]).toString().trim().split("\n").filter(Boolean)) {
    if (prefix) {
      let title = "";
      try {
        title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        continue;
      }
      // a backend's title names its user, database and client ("… postgres mrt_x_sending 127.0.0.1(5123) idle");
      // the server's writers name no client
      const backend = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(title);
      if (backend && !title.includes(` ${prefix}_`)) continue;
    }
    total += cpuSeconds(Number(pid)) ?? 0;
  }
  return total;
}

/** A connection to one service's database of a platform (benches seed and read; services never share). */
export function serviceDb(platform, service) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${platform.prefix}_${service}`;
  return postgres(url.toString(), { max: 1, onnotice: () => undefined });
}

/**
 * nodemailer DKIM options that sign as the delivery worker signs a domain's mail: its key and
 * selector, and the worker's header list. A baseline sending "the same messages" signs them too.
 */
export async function signingOptions(platform, domain) {
  const sql = serviceDb(platform, "sending");
  const [row] = await sql`select selector, private_key from domains where domain = ${domain}`;
  await sql.end();
  const { DKIM_HEADERS } = await import("../services/sending/dist/domain/dkim.js");
  return { domainName: domain, keySelector: row.selector, privateKey: createPrivateKey(row.private_key), headerFieldNames: DKIM_HEADERS };
}

/**
 * For a bare pool that signs as the delivery worker does: each message built by nodemailer's own
 * MailComposer (streams, as the transport builds it), DKIM-signed on the thread pool by the sending
 * service's dkim.ts, and handed to the pool raw. `signing` is signingOptions().
 */
export async function threadPoolSigning(signing) {
  const { signMessage } = await import("../services/sending/dist/domain/dkim.js");
  const key = { domain: signing.domainName, selector: signing.keySelector, privateKey: signing.privateKey };
  return async (message) => ({
    envelope: { from: message.from, to: [message.to] },
    raw: await signMessage(await new MailComposer(message).compile().build(), key),
  });
}

/**
 * `count` subscribed contacts of a project, straight into the contacts service's table with COPY
 * (seconds for 100,000, where the API would take minutes): `address(i)`, data `{firstName: "Ann<i>"}`.
 */
export async function seedContacts(platform, projectId, count, address) {
  const sql = serviceDb(platform, "contacts");
  const { randomUUID } = await import("node:crypto");
  const now = new Date().toISOString();
  const writable = await sql`copy contacts (id, project_id, email, subscribed, data, created_at, updated_at) from stdin`.writable();
  const done = new Promise((resolve, reject) => writable.on("finish", resolve).on("error", reject));
  for (let i = 0; i < count; i++) writable.write(`${randomUUID()}\t${projectId}\t${address(i)}\tt\t{"firstName":"Ann${i}"}\t${now}\t${now}\n`);
  writable.end();
  await done;
  await sql`analyze contacts`;
  await sql.end();
}

/** The `p`th percentile (nearest rank) of `sorted`, ascending; null when it is empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
