// npm run bench -- campaign
// A campaign to N contacts (seeded with COPY) into the local SMTP sink, against a bare nodemailer
// pool sending the same N messages to the same sink in the same run. BENCH_RECIPIENTS sets N.
// "The same messages" includes their DKIM signature: the baseline signs each one with the bench
// domain's key and header list, as the delivery worker does (BENCH_BASELINE_UNSIGNED=1 skips it).
// A second campaign then runs with two sending replicas sharing the same SMTP budget (half the pool
// and half the jobs in flight each), as the chart's backlog autoscaling runs a campaign; a Node
// process delivers on one thread, and with one replica that thread is the limit
// (BENCH_SCALE_OUT=0 skips it).
// Last, the one-replica campaign again on a three-server JetStream cluster with every stream
// replicated three times and a NATS user per service, as production runs NATS (docs/operations.md):
// what replication costs, as a ratio to the single-server campaign of the same run (BENCH_CLUSTER=0
// skips it; a smoke run skips it unless BENCH_CLUSTER=1: it doubled the smoke's time, and the fault
// suite starts the same cluster in every run).
import { readFileSync } from "node:fs";
import nodemailer from "nodemailer";
import { startNatsCluster } from "@mailroom/faults";
import { Platform, apiClient, runPrefix } from "@mailroom/testkit";
import { BENCH_ENV, cpuMeter, formatCpu, machine, peakRssMb, profiled, seedContacts, signingOptions, SMOKE, threadPoolSigning, writeResult, size } from "./lib.mjs";
import { startSinkProcess } from "./sink.mjs";

const N = size("BENCH_RECIPIENTS", 100_000, 300);
const POOL = Number(process.env.BENCH_SMTP_POOL ?? 10);
const CONCURRENCY = Number(process.env.BENCH_DELIVERY_CONCURRENCY ?? 64);
const SERVICES = ["gateway", "contacts", "sending", "campaigns"];
const SCALE_OUT = process.env.BENCH_SCALE_OUT !== "0";
const CLUSTER = process.env.BENCH_CLUSTER ? process.env.BENCH_CLUSTER !== "0" : !SMOKE;
/** Each of the two replicas' share of the one replica's SMTP budget. */
const HALF_POOL = Math.max(1, POOL / 2);
const HALF_CONCURRENCY = Math.max(1, CONCURRENCY / 2);
/** What cpuMeter measures besides the services: NATS, PostgreSQL and this process. */
const METER = { nats: true, postgres: true, selfName: "bench process" };
const subject = "Spring news for {{ firstName }}";
const body = `<p>Hi {{ firstName }},</p><p>${"Our spring catalogue is here. ".repeat(20)}</p>`;
const address = (i) => `r${i}@bench.example.com`;

const sink = await startSinkProcess();
// BENCH_PROFILE=sending,contacts profiles those services (bench/lib.mjs).
const serviceEnv = profiled({
  campaigns: { LOG_LEVEL: process.env.BENCH_CAMPAIGNS_LOG ?? "warn" },
  sending: { SMTP_POOL_SIZE: String(POOL), DELIVERY_CONCURRENCY: String(CONCURRENCY) },
});
const platformEnv = { ...BENCH_ENV, SMTP_URL: sink.url, RETURN_PATH_DOMAIN: "bounces.bench.test" };
const platform = new Platform({ services: SERVICES, env: platformEnv, serviceEnv });

/** Every service's current and peak resident memory, in MB. */
function rss(target = platform) {
  const out = {};
  for (const name of SERVICES) {
    for (const [i, proc] of (target.procs.get(name) ?? []).entries()) {
      const pid = proc.child.pid;
      out[i ? `${name} ${i + 1}` : name] = { peakMb: peakRssMb(pid), nowMb: currentRssMb(pid) };
    }
  }
  return out;
}

function currentRssMb(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

/** A baseline run with the CPU it cost and what arrived, leaving the sink empty for the next run. */
async function measuredBare(from, dkim, prepare) {
  const meter = cpuMeter({ sink: sink.pid }, { nats: false, selfName: "pool" });
  const run = await bare(from, dkim, prepare);
  run.cpuMsPerEmail = meter.perItemMs(N);
  run.arrived = (await sink.stats()).count;
  await sink.reset();
  return run;
}

/**
 * The baseline: the same messages straight through a pooled nodemailer transport, signed by its
 * `dkim` option, or made into what the pool is handed by `prepare` (lib.mjs threadPoolSigning).
 */
async function bare(from, dkim, prepare = async (message) => message) {
  const transport = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: POOL, maxMessages: Infinity, ...(dkim ? { dkim } : {}) });
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < N) {
      const i = next++;
      const name = `Ann${i}`;
      await transport.sendMail(
        await prepare({
          from,
          to: address(i),
          subject: subject.replace("{{ firstName }}", name),
          html: body.replace("{{ firstName }}", name),
          headers: { "List-Unsubscribe": `<http://localhost/u/${i}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click", Precedence: "bulk" },
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (Date.now() - started) / 1000;
  transport.close();
  return { seconds, emailsPerSec: Math.round(N / seconds), firstEmailMs: (await sink.stats()).first - started };
}

async function campaign(api, from, target = platform) {
  const c = (await api.post("/campaigns", { name: "bench", subject, body, from, audienceType: "ALL" })).body.data;
  const started = Date.now();
  const sent = await api.post(`/campaigns/${c.id}/send`);
  if (sent.status !== 200) throw new Error(`send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  let at10k = null;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const { count } = await sink.stats();
    if (!at10k && count >= Math.min(10_000, N)) at10k = { count, rss: rss(target) };
    const now = (await api.get(`/campaigns/${c.id}`)).body;
    if (now.status === "SENT") {
      const { first, last } = await sink.stats();
      const seconds = (last - started) / 1000;
      return { seconds, emailsPerSec: Math.round(N / seconds), firstEmailMs: first - started, stats: now.stats, at10k };
    }
    if (Date.now() - started > 3600_000) throw new Error(`campaign not SENT after an hour: ${JSON.stringify(now.stats)}`);
  }
}

/**
 * The same campaign again with two sending replicas that share the one replica's SMTP budget: half
 * the pool and half the jobs in flight each, so the sink sees the same number of connections.
 */
async function scaledOut(api, from, servicePids) {
  await sink.reset();
  await platform.stopService("sending");
  const half = { SMTP_POOL_SIZE: String(HALF_POOL), DELIVERY_CONCURRENCY: String(HALF_CONCURRENCY) };
  await platform.startService("sending", half);
  await platform.startService("sending", half);
  const [one, two] = platform.procs.get("sending");
  const { sending: _gone, ...others } = servicePids;
  const meter = cpuMeter({ ...others, "sending 1": one.child.pid, "sending 2": two.child.pid }, { ...METER, postgres: platform.prefix });
  const run = await campaign(api, from);
  const cpuMsPerEmail = meter.perItemMs(N);
  const { count, distinctMessageIds, duplicates } = await sink.stats();
  return { ...run, cpuMsPerEmail, arrived: count, distinctMessageIds, duplicates, rss: rss() };
}

/**
 * The one-replica campaign on a three-server cluster (R3 streams, a NATS user per service, every
 * service given the three URLs), a platform of its own with the same contacts, after the
 * single-server platform has stopped.
 */
async function onCluster(domain, from) {
  await sink.reset();
  const prefix = runPrefix("bench");
  const cluster = await startNatsCluster(prefix);
  const clustered = new Platform({
    prefix,
    services: SERVICES,
    env: { ...platformEnv, NATS_URL: cluster.url, NATS_REPLICAS: "3" },
    serviceEnv: Object.fromEntries(SERVICES.map((s) => [s, { ...serviceEnv[s], ...cluster.credentials(s) }])),
  });
  try {
    await clustered.start();
    const project = await clustered.createProject("bench");
    await clustered.cli(["domains", "verify", "--project", project.id, "--domain", domain, "--json"]);
    await seedContacts(clustered, project.id, N, address);
    const pids = Object.fromEntries(SERVICES.map((s) => [s, clustered.procs.get(s)?.[0]?.child.pid]));
    for (const node of cluster.nodes) pids[`nats ${node.name}`] = node.pid;
    const meter = cpuMeter({ ...pids, sink: sink.pid }, { ...METER, nats: false, postgres: prefix });
    const run = await campaign(apiClient(clustered.url, project.secretKey), from, clustered);
    const cpuMsPerEmail = meter.perItemMs(N);
    const { count, distinctMessageIds, duplicates } = await sink.stats();
    return { ...run, cpuMsPerEmail, arrived: count, distinctMessageIds, duplicates };
  } finally {
    await clustered.destroy();
    await cluster.destroy();
  }
}

await platform.start();
try {
  const project = await platform.createProject("bench");
  const api = apiClient(platform.url, project.secretKey);
  const domain = "bench.mailroom.test";
  await platform.cli(["domains", "verify", "--project", project.id, "--domain", domain, "--json"]);
  const from = `news@${domain}`;
  const seedStart = Date.now();
  await seedContacts(platform, project.id, N, address);
  const seedSeconds = (Date.now() - seedStart) / 1000;

  const signed = process.env.BENCH_BASELINE_UNSIGNED !== "1";
  const dkim = signed ? await signingOptions(platform, domain) : null;
  // The same pool, signing with stock nodemailer's signer and, as Mailroom's delivery signs, on the
  // thread pool with the sending service's dkim.ts: the ratio against each.
  const baseline = await measuredBare(from, dkim);
  // BENCH_CAMPAIGN_BASELINES=stock (bench:guard's short runs) leaves the second baseline out
  const pooled = dkim && process.env.BENCH_CAMPAIGN_BASELINES !== "stock" ? await measuredBare(from, null, await threadPoolSigning(dkim)) : null;
  const servicePids = { ...Object.fromEntries(SERVICES.map((s) => [s, platform.procs.get(s)?.[0]?.child.pid])), sink: sink.pid };
  const meter = cpuMeter(servicePids, { ...METER, postgres: platform.prefix });
  const mailroom = await campaign(api, from);
  const cpuSpent = meter.seconds();
  const cpuMsPerEmail = meter.perItemMs(N);
  const { count: mailroomCount, distinctMessageIds, duplicates } = await sink.stats();
  const end = rss();
  const scaled = SCALE_OUT ? await scaledOut(api, from, servicePids) : null;
  let clustered = null;
  if (CLUSTER) {
    // the single-server platform's processes would idle beside the cluster's
    await platform.destroy();
    clustered = await onCluster(domain, from);
  }
  const clusterRatio = clustered ? clustered.emailsPerSec / mailroom.emailsPerSec : null;

  const ratio = mailroom.emailsPerSec / baseline.emailsPerSec;
  const scaledRatio = scaled ? scaled.emailsPerSec / baseline.emailsPerSec : null;
  const pooledRatio = pooled ? mailroom.emailsPerSec / pooled.emailsPerSec : null;
  const cpuUsed = Object.fromEntries(Object.entries(cpuSpent).map(([s, v]) => [s, +v.toFixed(1)]));
  const rows = SERVICES.map(
    (s) => `| ${s} | ${end[s].peakMb} | ${mailroom.at10k?.rss[s].nowMb ?? "–"} | ${end[s].nowMb} | ${cpuUsed[s]} |`,
  );
  const md = [
    `Campaign to ${N} contacts (ALL, seeded with COPY in ${seedSeconds.toFixed(1)} s) into a counting SMTP sink (bench/sink.mjs, a process of its own), vs a bare nodemailer pool`,
    `sending the same ${N} messages (${signed ? "DKIM-signed with the same key and header list" : "unsigned: BENCH_BASELINE_UNSIGNED"}) to the same sink.`,
    `SMTP pool ${POOL} connections, ${CONCURRENCY} in flight, for both.`,
    "",
    "| path | emails/s | total s | first email ms | arrived in sink |",
    "|---|---|---|---|---|",
    `| bare nodemailer pool (baseline) | ${baseline.emailsPerSec} | ${baseline.seconds.toFixed(1)} | ${baseline.firstEmailMs} | ${baseline.arrived} |`,
    ...(pooled ? [`| bare pool, messages signed on the thread pool by Mailroom's dkim.ts | ${pooled.emailsPerSec} | ${pooled.seconds.toFixed(1)} | ${pooled.firstEmailMs} | ${pooled.arrived} |`] : []),
    `| Mailroom campaign (send → last email) | ${mailroom.emailsPerSec} | ${mailroom.seconds.toFixed(1)} | ${mailroom.firstEmailMs} | ${mailroomCount} |`,
    ...(scaled ? [`| Mailroom campaign, two sending replicas (${HALF_POOL} connections and ${HALF_CONCURRENCY} in flight each) | ${scaled.emailsPerSec} | ${scaled.seconds.toFixed(1)} | ${scaled.firstEmailMs} | ${scaled.arrived} |`] : []),
    ...(clustered ? [`| Mailroom campaign on a three-server NATS cluster, streams R3 | ${clustered.emailsPerSec} | ${clustered.seconds.toFixed(1)} | ${clustered.firstEmailMs} | ${clustered.arrived} |`] : []),
    "",
    `Ratio **${ratio.toFixed(2)}** against stock nodemailer (target ≥ 0.6)${pooled ? `, ${pooledRatio.toFixed(2)} against the pool that signs on the thread pool too` : ""}; ≥ 1,000 emails/s sustained targeted; first email < 2,000 ms targeted.`,
    ...(scaled ? [`Two sending replicas: ratio **${scaledRatio.toFixed(2)}** against stock nodemailer; ${scaled.distinctMessageIds} distinct Message-IDs (${scaled.duplicates} repeated); final stats ${JSON.stringify(scaled.stats)}.`] : []),
    ...(clustered ? [`On the three-server cluster: **${clusterRatio.toFixed(2)}** of the single-server campaign's emails/s (what replicating every stream three times costs); ${clustered.distinctMessageIds} distinct Message-IDs (${clustered.duplicates} repeated); CPU ms per email ${formatCpu(clustered.cpuMsPerEmail)}.`] : []),
    `Final stats: ${JSON.stringify(mailroom.stats)}. Distinct Message-IDs in the sink: ${distinctMessageIds} (${duplicates} repeated).`,
    `CPU ms per email: ${formatCpu(cpuMsPerEmail)}; baseline: ${formatCpu(baseline.cpuMsPerEmail)}${pooled ? `; thread-pool baseline: ${formatCpu(pooled.cpuMsPerEmail)}` : ""}${scaled ? `; two sending replicas: ${formatCpu(scaled.cpuMsPerEmail)}` : ""}.`,
    "",
    "| service | peak RSS MB | RSS MB at 10,000 sent | RSS MB at the end | CPU s during the campaign |",
    "|---|---|---|---|---|",
    ...rows,
    ...(scaled ? ["", `Two sending replicas: peak RSS ${["sending", "sending 2"].map((k) => `${k} ${scaled.rss[k]?.peakMb} MB`).join(", ")}; at 10,000 sent ${["sending", "sending 2"].map((k) => `${scaled.at10k?.rss[k]?.nowMb ?? "–"} MB`).join(" and ")}.`] : []),
    "",
    `Bench process (baseline): peak ${peakRssMb(process.pid)} MB; sink: peak ${peakRssMb(sink.pid)} MB. ${machine()}.`,
  ].join("\n");
  writeResult("campaign", { recipients: N, baselineSigned: signed, baseline, threadPoolBaseline: pooled, mailroom, ratio, threadPoolRatio: pooledRatio, scaledOut: scaled, scaledOutRatio: scaledRatio, cluster: clustered, clusterRatio, rss: end, cpuSeconds: cpuUsed, cpuMsPerEmail, sink: { distinctMessageIds, duplicates } }, md);
} finally {
  await platform.destroy();
  await sink.stop();
}
process.exit(0);
