#!/usr/bin/env node
// `npm run soak`: the whole platform (six services, like `npm start`) under a fixed mixed rate for
// 10 minutes (SOAK_MINUTES / --minutes), then checks the promises of a long run: zero errors, zero
// lost emails (every accepted /v1/send in the sink, once), flat memory (RSS of every service after
// the warm-up grows < 10%), and records p50/p99 per route in bench/results/soak.md. Exit 1 on a miss.
//
// The mix, per second at SOAK_RATE (default 20 requests/s): 30% /v1/send (a new recipient each),
// 25% /v1/track (page views of known contacts, public key), 15% /v1/track of the workflow's trigger
// event (each starts an execution: DELAY, UPDATE_CONTACT, EXIT), 15% GET /contacts, 15% POST
// /contacts; plus one ALL-audience campaign sent when the warm-up ends.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ensureInfra } from "./infra.mjs";
import { machine, writeResult } from "../bench/lib.mjs";

const { values: args } = parseArgs({
  options: { minutes: { type: "string" }, rate: { type: "string" }, warmup: { type: "string" } },
});
const MINUTES = Number(args.minutes ?? process.env.SOAK_MINUTES ?? 10);
const RATE = Number(args.rate ?? process.env.SOAK_RATE ?? 20);
/** Share of the run before memory and the campaign count: JIT, pools and caches settle. */
const WARMUP = Number(args.warmup ?? process.env.SOAK_WARMUP ?? 0.2);
const BOUND_MS = 10_000;
const SAMPLE_MS = 5_000;
const MIX = [
  ["send", 0.3],
  ["track", 0.25],
  ["trigger", 0.15],
  ["contacts.list", 0.15],
  ["contacts.create", 0.15],
];

const say = (m) => console.log(`soak ${new Date().toISOString().slice(11, 19)} ${m}`);
const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

const { Platform } = await import("../packages/testkit/dist/index.js");
const { startMailbox } = await import("../packages/devmailbox/dist/index.js");
const { call, deliveryReport, percentile } = await import("../packages/faults/dist/index.js");

await ensureInfra({
  natsUrl: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
  databaseUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
});
const mailbox = await startMailbox({ maxMessages: 1_000_000 });
const platform = new Platform({
  prefix: `mrt_soak_${randomBytes(3).toString("hex")}`,
  env: {
    SMTP_URL: mailbox.smtpUrl,
    RETURN_PATH_DOMAIN: "bounces.mailroom.test",
    LOG_LEVEL: "warn",
    // the services' default pool, as under `npm start` (the testkit's 4 is for parallel test platforms)
    DB_POOL_MAX: "10",
    RATE_LIMIT_PER_SECOND: "10000",
    RATE_LIMIT_BURST: "10000",
    WORKFLOWS_TIME_SCALE: "60",
  },
});
let cleaning;
const cleanup = () =>
  (cleaning ??= (async () => {
    await platform.destroy().catch(() => undefined);
    await mailbox.stop().catch(() => undefined);
  })());
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));

try {
  process.exitCode = await soak();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cleanup();
}

async function soak() {
  say(`starting the platform (prefix ${platform.prefix})`);
  await platform.start();
  const project = await platform.createProject("soak");
  const domain = `soak-${randomBytes(4).toString("hex")}.mailroom.test`;
  await platform.cli(["domains", "verify", "--project", project.id, "--domain", domain]);
  const base = platform.url;
  const api = (path, init = {}) => call(`${base}${path}`, { key: project.secretKey, ...init }, BOUND_MS);
  const must = async (p) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`setup request failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  // A workflow on the trigger event, with a DELAY (a second at this time scale) so timers run too.
  const event = "soak-signup";
  const wf = await must(api("/workflows", { body: { name: "soak", eventName: event, allowReentry: true } }));
  let after = wf.steps[0].id;
  for (const step of [
    { type: "DELAY", config: { amount: 1, unit: "minutes" } },
    { type: "UPDATE_CONTACT", config: { data: { onboarded: true } } },
    { type: "EXIT", config: {} },
  ]) after = (await must(api(`/workflows/${wf.id}/steps`, { body: { ...step, after } }))).id;
  await must(api(`/workflows/${wf.id}`, { method: "PATCH", body: { enabled: true } }));

  const run = randomBytes(3).toString("hex");
  const known = [];
  for (let i = 0; i < 50; i++) {
    const email = `known-${run}-${i}@example.com`;
    await must(api("/contacts", { body: { email, subscribed: true } }));
    known.push(email);
  }
  const campaign = (
    await must(api("/campaigns", { body: { name: "soak", subject: "Soak", body: "<p>hello</p>", from: `news@${domain}`, audienceType: "ALL" } }))
  ).data;

  const latencies = Object.fromEntries(MIX.map(([r]) => [r, []]));
  const errors = [];
  const accepted = [];
  let triggered = 0;
  let seq = 0;
  const fire = async (route) => {
    const n = seq++;
    let r;
    if (route === "send") {
      const to = `send-${run}-${n}@example.com`;
      r = await api("/v1/send", { body: { to, from: `hello@${domain}`, subject: `soak ${n}`, body: `<p>${n}</p>` } });
      if (r.status === 200) accepted.push(to);
    } else if (route === "track") {
      const email = known[n % known.length];
      r = await call(`${base}/v1/track`, { key: project.publicKey, body: { email, event: "page-view", data: { n } } }, BOUND_MS);
    } else if (route === "trigger") {
      r = await api("/v1/track", { body: { email: `signup-${run}-${n}@example.com`, event, subscribed: false } });
      if (r.status === 200) triggered++;
    } else if (route === "contacts.list") {
      r = await api("/contacts?limit=20");
    } else {
      const email = `new-${run}-${n}@example.com`;
      r = await api("/contacts", { body: { email, subscribed: false, data: { n } } });
    }
    latencies[route].push(r.ms);
    if (r.status < 200 || r.status >= 300) errors.push({ route, status: r.status, body: JSON.stringify(r.body).slice(0, 300) });
  };

  // Open loop: requests start on schedule whatever the answers take, so a slowdown shows as latency.
  const durationMs = MINUTES * 60_000;
  const warmupMs = durationMs * WARMUP;
  const started = Date.now();
  const inflight = new Set();
  const rss = new Map([...platform.procs].map(([name]) => [name, []]));
  // RSS is what the target names; the V8 heap in use (from each service's /metrics) tells a leak,
  // which grows it request after request, from a heap that is still sizing itself to the load.
  const sampler = setInterval(() => {
    for (const [name, procs] of platform.procs) {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${procs[0].child.pid}/status`, "utf8"))?.[1] ?? 0);
      const sample = { t: Date.now() - started, mb: kb / 1024, heapMb: null };
      rss.get(name).push(sample);
      fetch(`http://127.0.0.1:${procs[0].opsPort}/metrics`)
        .then((r) => r.text())
        .then((text) => {
          const used = /^mailroom_process_nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1];
          if (used) sample.heapMb = Number(used) / 1024 / 1024;
        })
        .catch(() => undefined);
    }
  }, SAMPLE_MS);
  let campaignSent = false;
  say(`running ${MINUTES} min at ${RATE} requests/s (warm-up ${Math.round(warmupMs / 1000)} s)`);
  let lastReport = started;
  for (let i = 0; Date.now() - started < durationMs; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    let pick = ((i * 0.6180339887) % 1 + 1) % 1; // evenly spread, deterministic
    const route = MIX.find(([, share]) => (pick -= share) < 0)?.[0] ?? "send";
    const p = fire(route).finally(() => inflight.delete(p));
    inflight.add(p);
    if (!campaignSent && Date.now() - started > warmupMs) {
      campaignSent = true;
      const r = await api(`/campaigns/${campaign.id}/send`, { body: {} });
      if (r.status !== 200) errors.push({ route: "campaign.send", status: r.status, body: JSON.stringify(r.body) });
    }
    if (Date.now() - lastReport > 30_000) {
      lastReport = Date.now();
      say(`${seq} requests, ${errors.length} errors, ${accepted.length} sends accepted, ${mailbox.messages().length} in the sink`);
    }
  }
  await Promise.all(inflight);
  clearInterval(sampler);
  say("load done; waiting for every accepted email");

  // Every accepted send and every campaign recipient delivered, once.
  const audienceSize = (await api(`/campaigns/${campaign.id}`)).body?.stats?.recipients ?? 0;
  const deadline = Date.now() + 180_000;
  let report;
  let campaignStatus;
  while (Date.now() < deadline) {
    report = deliveryReport(mailbox.messages(), accepted, mailbox.messages().flatMap((m) => m.envelope.rcptTo));
    campaignStatus = (await api(`/campaigns/${campaign.id}`)).body?.status;
    if (report.missing.length === 0 && campaignStatus === "SENT") break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  // Every trigger event started one execution, and its timer fired: all of them ended EXITED.
  const exited = async () => {
    let n = 0;
    let cursor = null;
    do {
      const page = (await api(`/workflows/${wf.id}/executions?status=EXITED&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)).body;
      n += page.data.length;
      cursor = page.hasMore ? page.cursor : null;
    } while (cursor);
    return n;
  };
  let executionsExited = await exited();
  for (let i = 0; i < 30 && executionsExited < triggered; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    executionsExited = await exited();
  }
  const lost = report.missing.length;
  const doubled = report.doubled.length + report.repeatedCopies;

  // Memory: the median of the first minute after the warm-up against the median of the last minute.
  const median = (xs) => percentile(xs, 50);
  const windowMs = Math.min(60_000, (durationMs - warmupMs) / 3);
  const memory = [...rss].map(([name, samples]) => {
    const earlyWindow = samples.filter((s) => s.t >= warmupMs && s.t < warmupMs + windowMs);
    const lateWindow = samples.filter((s) => s.t >= durationMs - windowMs);
    const early = median(earlyWindow.map((s) => s.mb));
    const late = median(lateWindow.map((s) => s.mb));
    const heap = (w) => Math.round(median(w.map((s) => s.heapMb).filter((v) => v !== null)) || 0);
    // One RSS figure per half minute, to see whether a growth levels off (sizing) or keeps on (a leak).
    const series = samples.filter((_, i) => i % Math.max(1, Math.round(30_000 / SAMPLE_MS)) === 0).map((s) => Math.round(s.mb));
    return {
      name,
      early: Math.round(early),
      late: Math.round(late),
      growth: early ? late / early - 1 : 0,
      peak: Math.round(Math.max(...samples.map((s) => s.mb))),
      heapEarly: heap(earlyWindow),
      heapLate: heap(lateWindow),
      series,
    };
  });
  const maxGrowth = Math.max(...memory.map((m) => m.growth));

  const routes = MIX.map(([route]) => ({
    route,
    count: latencies[route].length,
    p50: Math.round(percentile(latencies[route], 50)),
    p99: Math.round(percentile(latencies[route], 99)),
    max: Math.round(Math.max(0, ...latencies[route])),
  }));
  const verdicts = {
    "zero errors": errors.length === 0,
    "zero lost emails": lost === 0,
    "no email sent twice": doubled === 0,
    "campaign SENT": campaignStatus === "SENT",
    "every workflow trigger ran to the end once": executionsExited === triggered,
    "RSS growth < 10% after warm-up": maxGrowth < 0.1,
  };
  const md = [
    `${MINUTES} min at ${RATE} requests/s (open loop), warm-up ${Math.round(WARMUP * 100)}%; ${seq} requests; the platform of \`npm start\` (six services, one process each) against the local NATS, PostgreSQL and Redis, the development mailbox as relay. ${machine()}.`,
    "",
    "| route | requests | p50 ms | p99 ms | max ms |",
    "|---|---|---|---|---|",
    ...routes.map((r) => `| ${r.route} | ${r.count} | ${r.p50} | ${r.p99} | ${r.max} |`),
    "",
    `Errors: ${errors.length}. Accepted sends: ${accepted.length}, delivered: ${report.delivered}, lost: ${lost}, repeated: ${doubled}. Campaign to ${audienceSize} contacts: ${campaignStatus}. Workflow triggers: ${triggered}, executions ended: ${executionsExited}.`,
    "",
    "| service | RSS MB after warm-up | RSS MB at the end | growth | peak MB | V8 heap used MB after warm-up → end | RSS every 30 s |",
    "|---|---|---|---|---|---|---|",
    ...memory.map(
      (m) => `| ${m.name} | ${m.early} | ${m.late} | ${(m.growth * 100).toFixed(1)}% | ${m.peak} | ${m.heapEarly} → ${m.heapLate} | ${m.series.join(" ")} |`,
    ),
    "",
    ...Object.entries(verdicts).map(([k, ok]) => `- ${ok ? "PASS" : "FAIL"}: ${k}`),
    ...(errors.length ? ["", "First errors:", ...errors.slice(0, 10).map((e) => `- ${e.route} ${e.status} ${e.body}`)] : []),
  ].join("\n");
  writeResult("soak", { minutes: MINUTES, rate: RATE, requests: seq, errors: errors.length, accepted: accepted.length, lost, doubled, campaignStatus, triggered, executionsExited, routes, memory, verdicts }, md);
  return Object.values(verdicts).every(Boolean) ? 0 : 1;
}
