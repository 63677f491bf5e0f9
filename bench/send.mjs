#!/usr/bin/env node
// Benchmark of the sending pipeline (run after `npx turbo run build`):
//   node bench/send.mjs [--duration 10] [--connections 32] [--emails 20000]
// 1. /v1/send accepted throughput and p50/p99 through the gateway (autocannon), against a bare
//    fastify route doing one INSERT and one JetStream publish (in a process of its own, as the
//    services are: bench/baseline.mjs says why), in the same run. Nothing consumes the
//    baseline's jobs, so Mailroom's delivery is held back for the ratio (a per-project rate of 1/s);
//    a second run measures accepting while delivering.
// 2. End-to-end delivery rate of N emails into an SMTP sink, against a bare nodemailer pool.
// Results: bench/results/send.{json,md} (npm run bench -- send)
import { parseArgs } from "node:util";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeResult, BENCH_ENV, profiled, signingOptions, threadPoolSigning, cpuMeter, formatCpu, peakRssMb, alternate, load, startBaseline, size } from "./lib.mjs";
import { sinkReaches, sinkSettled, startSinkProcess } from "./sink.mjs";
import nodemailer from "nodemailer";
import { Platform, REPO_ROOT, addZones, apiClient, startDnsServer, DATABASE_URL, NATS_URL } from "@mailroom/testkit";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: String(size("BENCH_DURATION", 10, 1)) },
    connections: { type: "string", default: "32" },
    emails: { type: "string", default: String(size("BENCH_EMAILS", 20_000, 200)) },
    rounds: { type: "string", default: String(size("BENCH_ROUNDS", 3, 1)) },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const emailCount = Number(args.emails);
const rounds = Number(args.rounds);
const POOL = 5;
/**
 * Jobs a delivery worker has in flight: the campaign bench's 64, above the service's default of 16.
 * /v1/send is transactional mail, so it is the transactional lane's setting that counts here.
 */
const CONCURRENCY = Number(process.env.BENCH_DELIVERY_CONCURRENCY ?? 64);

/** A load's figures (lib.mjs load()) as this benchmark reports them. */
const summary = (r) => ({ rps: r.requestsPerSec, p50: r.p50Ms, p99: r.p99Ms, non2xx: r.non2xx, errors: r.errors, rounds: r.rounds });

/** The baseline route (bench/baseline.mjs "send"), in a process of its own as the services are. */
async function bareRoute(prefix) {
  const bare = await startBaseline("send", { DATABASE_URL, NATS_URL, BASELINE_PREFIX: prefix });
  return { ...bare, url: `${bare.url}/send` };
}

async function main() {
  // The counting sink, in a process of its own (bench/sink.mjs): the development mailbox parsed every
  // message in this process, which held the bare pool to what the parser allowed.
  const sink = await startSinkProcess();
  // The baseline's jobs are never consumed, so the like-for-like accept run holds Mailroom's delivery
  // back too (SEND_RATE_PER_PROJECT=1); the sending service then restarts without the limit.
  const platform = new Platform({
    services: ["gateway", "contacts", "sending"],
    env: { ...BENCH_ENV, RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000" },
    serviceEnv: profiled({ sending: { SEND_RATE_PER_PROJECT: "1" } }),
  });
  const dir = join(REPO_ROOT, ".mailroom", "test-data", platform.prefix);
  mkdirSync(dir, { recursive: true });
  const zonesFile = join(dir, "zones.json");
  const dns = await startDnsServer({ zonesFile });
  Object.assign(platform.env, { SMTP_URL: sink.url, DNS_SERVER: dns.address, SMTP_POOL_SIZE: String(POOL), DELIVERY_CONCURRENCY: String(CONCURRENCY), TRANSACTIONAL_DELIVERY_CONCURRENCY: String(CONCURRENCY) });
  const bare = await bareRoute(platform.prefix);
  const results = { date: new Date().toISOString(), duration, connections, emails: emailCount };
  try {
    await platform.start();
    const project = await platform.createProject("bench");
    const api = apiClient(platform.url, project.secretKey);
    const domain = `bench-${Date.now().toString(36)}.mailroom.test`;
    const created = await api.post("/domains", { domain });
    const dkim = created.body.records.find((r) => r.purpose === "dkim");
    addZones(zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
    await api.post(`/domains/${created.body.id}/verify`);

    let n = 0;
    const body = () => JSON.stringify({ to: `r${n++}@bench.example`, from: `b@${domain}`, subject: "Bench {{ n }}", body: "<p>bench</p>", data: { n } });
    const headers = { "content-type": "application/json", authorization: `Bearer ${project.secretKey}` };
    const pidsOf = () => Object.fromEntries(["gateway", "contacts", "sending"].map((s) => [s, platform.procs.get(s)[0].child.pid]));
    const post = (url) => (d) => load({ url, method: "POST", headers, connections, duration: d, requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }] });
    const sendLoad = post(`${platform.url}/v1/send`);
    const bareLoad = post(bare.url);
    // BENCH_SEND_ACCEPT=0 (bench:guard's short runs): delivery only, the accept measurements left out
    const accepting = process.env.BENCH_SEND_ACCEPT !== "0";
    if (accepting) {
    // Both paths warm up first: the first seconds of a fresh process are its JIT compiling.
    await sendLoad(3);
    await bareLoad(3);
    // Alternated rounds (lib.mjs alternate()): a neighbour's busy spell weighs on both paths.
    const [bareRounds, sendRounds] = await alternate(
      [
        { name: "bare route", cpu: { server: bare.pid }, cpuOptions: { postgres: true, selfName: "benchProcess" }, run: bareLoad },
        { name: "/v1/send", cpu: pidsOf(), cpuOptions: { postgres: true, selfName: "benchProcess" }, run: sendLoad },
      ],
      { rounds, duration },
    );
    results.gateway = { ...summary(sendRounds), ratio: sendRounds.ratio, roundRatios: sendRounds.roundRatios };
    results.bareRoute = summary(bareRounds);
    results.acceptCpuMs = Object.fromEntries(Object.entries(sendRounds.cpuUsPerRequest).map(([k, v]) => [k, +(v / 1000).toFixed(2)]));

    // the held-back sending process: its peak while accepting
    results.peakRssMb = { sendingAccepting: peakRssMb(pidsOf().sending) };
    }
    await platform.stopService("sending");
    await platform.startService("sending", { SEND_RATE_PER_PROJECT: "0" });
    results.peakRssMb ??= {};
    if (accepting) {
    await sendLoad(3);
    const meter = cpuMeter(pidsOf(), { postgres: platform.prefix, selfName: "benchProcess" });
    results.gatewayDelivering = summary(await sendLoad(duration));
    results.deliveringCpuMs = meter.perItemMs(results.gatewayDelivering.rps * duration);
    }
    const pids = pidsOf();

    // Let the accepted backlog drain so the delivery measurement starts from an empty pipeline.
    results.acceptedDelivered = await sinkSettled(sink);
    await sink.reset();

    const deliveryMeter = cpuMeter({ ...pids, sink: sink.pid }, { postgres: platform.prefix, selfName: "benchProcess" });
    const started = Date.now();
    const batches = Array.from({ length: Math.ceil(emailCount / 50) }, (_, b) =>
      Array.from({ length: Math.min(50, emailCount - b * 50) }, (_, i) => `e${b * 50 + i}@bench.example`),
    );
    for (let i = 0; i < batches.length; i += 8) {
      await Promise.all(batches.slice(i, i + 8).map((to) => api.post("/v1/send", { to, from: `b@${domain}`, subject: "E2E", body: "<p>e2e</p>" })));
    }
    const queuedMs = Date.now() - started;
    await sinkReaches(sink, emailCount, "end-to-end delivery");
    const mailroomMs = Date.now() - started;
    results.delivery = { queuedMs, totalMs: mailroomMs, perSecond: emailCount / (mailroomMs / 1000), cpuMsPerEmail: deliveryMeter.perItemMs(emailCount) };
    // each process's peak over its life: the delivering sending process took the load meanwhile too
    for (const [name, pid] of Object.entries(pids)) results.peakRssMb[name] = peakRssMb(pid);
    results.peakRssMb.sink = peakRssMb(sink.pid);

    // The same messages, DKIM-signed with the domain's key: by stock nodemailer's signer, and
    // signed on the thread pool by the sending service's dkim.ts as Mailroom's delivery does.
    const signing = await signingOptions(platform, domain);
    const message = (i) => ({ from: `b@${domain}`, to: `e${i}@bench.example`, subject: "E2E", html: "<p>e2e</p>" });
    // Stock: every message handed to the pool at once, which composes and signs each when it sends
    // it. Signed beforehand: CONCURRENCY messages in flight, as the delivery worker has, so the run
    // does not build and hold all N messages before the first is sent.
    const handAll = (transport) => Promise.all(Array.from({ length: emailCount }, (_, i) => transport.sendMail(message(i))));
    const inFlight = (prepare) => async (transport) => {
      let next = 0;
      const worker = async () => {
        while (next < emailCount) await transport.sendMail(await prepare(message(next++)));
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    const barePool = async (dkim, send) => {
      await sink.reset();
      const transport = nodemailer.createTransport({ pool: true, url: sink.url, maxConnections: POOL, maxMessages: Infinity, ...(dkim ? { dkim } : {}) });
      const t0 = Date.now();
      await send(transport);
      await sinkReaches(sink, emailCount, "bare delivery");
      transport.close();
      const ms = Date.now() - t0;
      return { totalMs: ms, perSecond: emailCount / (ms / 1000) };
    };
    results.bareNodemailer = await barePool(signing, handAll);
    results.bareThreadPool = await barePool(null, inFlight(await threadPoolSigning(signing)));
  } finally {
    await bare.close().catch(() => undefined);
    await platform.destroy();
    await sink.stop();
    await dns.stop();
  }

  const accepted = results.gateway
    ? [
    `autocannon ${connections} connections; accepting: ${rounds} alternated rounds of ${duration} s per path (the median round shown, the ratio the median of the rounds'), then ${duration} s while delivering; ${emailCount} emails end to end; SMTP pool ${POOL}; ${CONCURRENCY} deliveries in flight; a counting SMTP sink in a process of its own (bench/sink.mjs).`,
    "",
    "| | req/s | p50 ms | p99 ms | non-2xx | req/s per round | ratio per round |",
    "|---|---|---|---|---|---|---|",
    `| /v1/send through the gateway, delivery held back (as the baseline's jobs) | ${results.gateway.rps.toFixed(0)} | ${results.gateway.p50} | ${results.gateway.p99} | ${results.gateway.non2xx} | ${results.gateway.rounds.join(", ")} | ${results.gateway.roundRatios.join(", ")} |`,
    `| /v1/send through the gateway, delivering meanwhile | ${results.gatewayDelivering.rps.toFixed(0)} | ${results.gatewayDelivering.p50} | ${results.gatewayDelivering.p99} | ${results.gatewayDelivering.non2xx} | | |`,
    `| bare fastify: INSERT + JetStream publish | ${results.bareRoute.rps.toFixed(0)} | ${results.bareRoute.p50} | ${results.bareRoute.p99} | ${results.bareRoute.non2xx} | ${results.bareRoute.rounds.join(", ")} | |`,
    "",
      ]
    : [`${emailCount} emails end to end (accepted throughput not measured: BENCH_SEND_ACCEPT=0); SMTP pool ${POOL}; ${CONCURRENCY} deliveries in flight.`, ""];
  const md = [
    ...accepted,
    "| delivery of N emails | total s | emails/s |",
    "|---|---|---|",
    `| Mailroom (send → record → job → worker → sink) | ${(results.delivery.totalMs / 1000).toFixed(1)} | ${results.delivery.perSecond.toFixed(0)} |`,
    `| bare nodemailer pool (the same messages, DKIM-signed with the domain's key) | ${(results.bareNodemailer.totalMs / 1000).toFixed(1)} | ${results.bareNodemailer.perSecond.toFixed(0)} |`,
    `| the same pool, messages signed on the thread pool by Mailroom's dkim.ts | ${(results.bareThreadPool.totalMs / 1000).toFixed(1)} | ${results.bareThreadPool.perSecond.toFixed(0)} |`,
    "",
    ...(results.gateway ? [`CPU ms per accepted request: ${formatCpu(results.acceptCpuMs)}; delivering meanwhile: ${formatCpu(results.deliveringCpuMs)}.`] : []),
    `CPU ms per email delivered end to end: ${formatCpu(results.delivery.cpuMsPerEmail)}.`,
    "",
    `Peak RSS (MB): sending ${results.peakRssMb.sending}${results.peakRssMb.sendingAccepting ? ` (accepting with delivery held back: ${results.peakRssMb.sendingAccepting})` : ""}, gateway ${results.peakRssMb.gateway}, contacts ${results.peakRssMb.contacts}, sink ${results.peakRssMb.sink}.`,
    "",
    `Ratios: ${results.gateway ? `accepted throughput ${results.gateway.ratio.toFixed(2)} (target ≥ 0.4; ${(results.gatewayDelivering.rps / results.bareRoute.rps).toFixed(2)} while delivering); ` : ""}delivery ${(results.delivery.perSecond / results.bareNodemailer.perSecond).toFixed(2)} against stock nodemailer (target ≥ 0.6), ${(results.delivery.perSecond / results.bareThreadPool.perSecond).toFixed(2)} against the pool that signs on the thread pool too.`,
  ].join("\n");
  writeResult("send", results, md);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
