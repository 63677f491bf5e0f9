#!/usr/bin/env node
// Benchmark of the SMTP relay (run after `npx turbo run build`):
//   node bench/relay.mjs [--messages 2000] [--connections 8] [--rounds 3]
// Messages a second accepted over the relay by a pooled nodemailer client (STARTTLS, AUTH once per
// connection) against the same messages posted to /v1/send, in alternated rounds of the same run.
// Both end at the same place (sending.send queues the email), so the ratio is what SMTP, TLS and
// MIME parsing cost over JSON; the target is at least 0.7. Delivery is held back (a per-project
// rate of 1/s) so it takes no CPU from accepting, as in bench/send.mjs. Then delivery end to end, as
// bench/send.mjs measures it: sending restarted without the hold, the same number of emails over the
// relay (50 recipients a message, as the send benchmark posts 50 a request) until all are in the SMTP
// sink, against a bare nodemailer pool sending the same emails, DKIM-signed with the domain's key,
// straight to the sink.
// Results: bench/results/relay.{json,md} (npm run bench -- relay)
import { parseArgs } from "node:util";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { generate } from "selfsigned";
import { BENCH_ENV, cpuMeter, formatCpu, profiled, signingOptions, size, writeResult } from "./lib.mjs";
import { sinkReaches, sinkSettled, startSinkProcess } from "./sink.mjs";
import { Platform, REPO_ROOT, addZones, apiClient, freePort, startDnsServer } from "@mailroom/testkit";

const { values: args } = parseArgs({
  options: {
    messages: { type: "string", default: String(size("BENCH_MESSAGES", 2000, 40)) },
    connections: { type: "string", default: "8" },
    rounds: { type: "string", default: String(size("BENCH_ROUNDS", 3, 1)) },
  },
});
const count = Number(args.messages);
const connections = Number(args.connections);
const rounds = Number(args.rounds);
/** The delivery worker's SMTP pool and jobs in flight, and the bare pool's: bench/send.mjs's. */
const POOL = 5;
const CONCURRENCY = 64;

/** One message, the same over both paths: a short HTML body with its text part. */
const message = (domain, i, round) => ({
  from: `b@${domain}`,
  to: `r${round}-${i}@bench.example`,
  subject: `Bench ${i}`,
  html: `<p>Hello ${i}, this is a transactional message.</p>`,
  text: `Hello ${i}, this is a transactional message.`,
});

/** `n` messages through `send`, `connections` at a time; answers the seconds it took. */
async function timed(send, n = count) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let i = next++; i < n; i = next++) await send(i);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Recipients a message in the delivery run: the send benchmark's 50 a request. */
const PER_MESSAGE = 50;

async function main() {
  const sink = await startSinkProcess();
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keySize: 2048,
    extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }] }],
  });
  const relayPort = await freePort();
  const platform = new Platform({
    services: ["gateway", "contacts", "sending"],
    env: { ...BENCH_ENV, RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000" },
    serviceEnv: profiled({ sending: { SEND_RATE_PER_PROJECT: "1" } }),
  });
  const dir = join(REPO_ROOT, ".mailroom", "test-data", platform.prefix);
  mkdirSync(dir, { recursive: true });
  const zonesFile = join(dir, "zones.json");
  const dns = await startDnsServer({ zonesFile });
  Object.assign(platform.env, {
    SMTP_URL: sink.url,
    DNS_SERVER: dns.address,
    SMTP_RELAY_HOST: "127.0.0.1",
    SMTP_RELAY_PORT: String(relayPort),
    SMTP_RELAY_TLS_PORT: "off",
    SMTP_RELAY_TLS_CERT: pems.cert,
    SMTP_RELAY_TLS_KEY: pems.private,
  });
  try {
    await platform.start();
    const project = await platform.createProject("bench");
    const api = apiClient(platform.url, project.secretKey);
    const domain = `relay-${Date.now().toString(36)}.mailroom.test`;
    const created = await api.post("/domains", { domain });
    const dkim = created.body.records.find((r) => r.purpose === "dkim");
    addZones(zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
    await api.post(`/domains/${created.body.id}/verify`);

    const headers = { "content-type": "application/json", authorization: `Bearer ${project.secretKey}` };
    const viaApi = (round) => (i) => {
      const m = message(domain, i, round);
      return fetch(`${platform.url}/v1/send`, { method: "POST", headers, body: JSON.stringify({ to: m.to, from: m.from, subject: m.subject, body: m.html, text: m.text }) }).then(async (res) => {
        if (res.status !== 200) throw new Error(`/v1/send answered ${res.status}: ${await res.text()}`);
      });
    };
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: relayPort,
      requireTLS: true,
      pool: true,
      maxConnections: connections,
      maxMessages: Number.POSITIVE_INFINITY,
      auth: { user: "bench", pass: project.secretKey },
      tls: { ca: [pems.cert], servername: "localhost" },
    });
    const viaRelay = (round) => (i) => transport.sendMail(message(domain, i, round));

    const pids = Object.fromEntries(["gateway", "contacts", "sending"].map((s) => [s, platform.procs.get(s)[0].child.pid]));
    // warm-up of both paths (the JIT, the relay's pooled connections)
    await timed(viaApi("warm-api"));
    await timed(viaRelay("warm-relay"));
    const totals = { api: 0, relay: 0 };
    const cpu = { api: {}, relay: {} };
    for (let round = 0; round < rounds; round++) {
      for (const [name, send] of [["api", viaApi], ["relay", viaRelay]]) {
        const meter = cpuMeter(pids, { postgres: platform.prefix, selfName: "benchProcess" });
        totals[name] += await timed(send(`${name}${round}`));
        for (const [k, v] of Object.entries(meter.perItemMs(count))) cpu[name][k] = +(((cpu[name][k] ?? 0) + v / rounds)).toFixed(2);
      }
    }

    // Delivery end to end: the held-back backlog delivered first, so the measurement starts empty.
    await platform.stopService("sending");
    await platform.startService("sending", { SEND_RATE_PER_PROJECT: "0" });
    await sinkSettled(sink);
    await sink.reset();
    const relayStarted = performance.now();
    await timed((b) => {
      const to = Array.from({ length: Math.min(PER_MESSAGE, count - b * PER_MESSAGE) }, (_, j) => `d${b * PER_MESSAGE + j}@bench.example`);
      return transport.sendMail({ ...message(domain, b, "deliver"), to });
    }, Math.ceil(count / PER_MESSAGE));
    await sinkReaches(sink, count, "relayed messages delivered");
    const relayDelivery = count / ((performance.now() - relayStarted) / 1000);
    transport.close();
    await sink.reset();
    const signed = nodemailer.createTransport({ pool: true, url: sink.url, maxConnections: POOL, maxMessages: Number.POSITIVE_INFINITY, dkim: await signingOptions(platform, domain) });
    const bareStarted = performance.now();
    await Promise.all(Array.from({ length: count }, (_, i) => signed.sendMail(message(domain, i, "bare"))));
    await sinkReaches(sink, count, "bare delivery");
    const bareDelivery = count / ((performance.now() - bareStarted) / 1000);
    signed.close();

    const api_ = (count * rounds) / totals.api;
    const relay = (count * rounds) / totals.relay;
    const ratio = relay / api_;
    const delivery = { relayPerSecond: +relayDelivery.toFixed(1), bareNodemailerPerSecond: +bareDelivery.toFixed(1), ratio: +(relayDelivery / bareDelivery).toFixed(2) };
    const result = { messages: count, connections, rounds, apiPerSecond: +api_.toFixed(1), relayPerSecond: +relay.toFixed(1), ratio: +ratio.toFixed(2), cpuMsPerMessage: cpu, delivery };
    writeResult(
      "relay",
      result,
      [
        `${count} messages × ${rounds} rounds, ${connections} at a time (pooled nodemailer over STARTTLS; /v1/send with fetch):`,
        "",
        "| path | messages/s | CPU ms per message |",
        "|---|---|---|",
        `| /v1/send | ${result.apiPerSecond} | ${formatCpu(cpu.api)} |`,
        `| SMTP relay | ${result.relayPerSecond} | ${formatCpu(cpu.relay)} |`,
        "",
        `Relay / API: **${result.ratio}** (target ≥ 0.7)`,
        "",
        `Delivered end to end (${count} emails into the SMTP sink, submitted as the send benchmark submits them: ${PER_MESSAGE} recipients a message, ${connections} connections; pool ${POOL}, ${CONCURRENCY} deliveries in flight):`,
        "",
        "| path | emails/s |",
        "|---|---|",
        `| SMTP relay → sending → sink | ${delivery.relayPerSecond} |`,
        `| bare nodemailer pool, the same messages DKIM-signed with the domain's key | ${delivery.bareNodemailerPerSecond} |`,
        "",
        `Relay delivery / bare nodemailer: **${delivery.ratio}** (the send benchmark's delivery target: ≥ 0.6)`,
      ].join("\n"),
    );
  } finally {
    await platform.destroy();
    await sink.stop();
    await dns.stop();
  }
}

await main();
process.exit(0);
