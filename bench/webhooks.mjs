#!/usr/bin/env node
// npm run bench -- webhooks: outbound webhooks (decisions.md §16) from the events stream to a local
// receiver (bench/webhook-receiver.mjs, a process of its own).
// 1. Throughput: BENCH_EVENTS events (200,000) published on the events stream as producers batch
//    them, one tenth to each of 10 endpoints, against a bare loop in the same run that signs and POSTs
//    the same bodies with the same concurrency (10 endpoints × WEBHOOKS_PER_ENDPOINT).
// 2. Latency at BENCH_RATE events/s (500), one event per message: event to arrival, p50/p99.
// 3. Isolation: a healthy endpoint's p99 alone, then with a hanging endpoint (never answers, so
//    every call waits the 10 s timeout) subscribed to the same events beside it.
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { EVENT_HEADERS, wireNames } from "@mailroom/contracts";
import { headers as natsHeaders } from "@nats-io/nats-core";
import { apiClient, Platform, NATS_URL } from "@mailroom/testkit";
import { BENCH_ENV, cpuMeter, formatCpu, peakRssMb, profiled, rssMb, size, writeResult } from "./lib.mjs";
import { startReceiverProcess } from "./webhook-receiver.mjs";

const EVENTS = size("BENCH_EVENTS", 200_000, 2_000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = size("BENCH_DURATION", 10, 2);
const WARMUP = size("BENCH_WARMUP", 3, 1);
const ENDPOINTS = 10;
const PER_ENDPOINT = 8;
const BATCH = 500;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const receiver = await startReceiverProcess();
const platform = new Platform({
  services: ["gateway", "workflows"],
  env: { ...BENCH_ENV, WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, WEBHOOKS_PER_ENDPOINT: String(PER_ENDPOINT) },
  serviceEnv: profiled(),
});
const results = { events: EVENTS, endpoints: ENDPOINTS, perEndpoint: PER_ENDPOINT };
let nc;
try {
  await platform.start();
  const project = await platform.createProject("bench");
  const api = apiClient(platform.url, project.secretKey);
  nc = await connect({ servers: NATS_URL });
  const js = jetstream(nc);
  const names = wireNames(platform.prefix);
  const workflowsPid = () => platform.procs.get("workflows")[0].child.pid;
  const hook = async (path, events) => {
    const res = await api.post("/webhooks", { url: `${receiver.url}${path}`, events });
    if (res.status !== 201) throw new Error(`creating ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const event = (name, family) => ({
    id: randomUUID(),
    projectId: project.id,
    name,
    family,
    contactId: randomUUID(),
    email: `c-${randomBytes(4).toString("hex")}@bench.example`,
    data: { segmentId: randomUUID(), segmentName: "bench" },
    occurredAt: new Date().toISOString(),
  });
  /** Events of one family as one batch message, as a producer's outbox publishes them. */
  const publishBatch = (events, family) => {
    const h = natsHeaders();
    h.set(EVENT_HEADERS.batch, "1");
    h.set(EVENT_HEADERS.names, [...new Set(events.map((e) => e.name))].join(","));
    return js.publish(names.subjects.event(family, project.id), JSON.stringify({ events }), { headers: h, msgID: randomUUID() });
  };
  const delivered = async (paths) => {
    const s = await receiver.stats();
    return paths.reduce((n, p) => n + (s[p]?.distinct ?? 0), 0);
  };
  const until = async (paths, n, what) => {
    const deadline = Date.now() + 30 * 60_000;
    while ((await delivered(paths)) < n) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };

  // 1. throughput: EVENTS events, a tenth to each endpoint
  const secrets = [];
  const paths = [];
  for (let k = 0; k < ENDPOINTS; k++) {
    paths.push(`/t${k}`);
    secrets.push((await hook(`/t${k}`, [`segment.s${k}.entry`])).secret);
  }
  // a warm-up round, so JIT and pools are warm for both paths
  await publishBatch(Array.from({ length: ENDPOINTS * 20 }, (_, i) => event(`segment.s${i % ENDPOINTS}.entry`, "segment")), "segment");
  await until(paths, ENDPOINTS * 20, "warm-up");
  await receiver.reset();
  results.rssBeforeMb = rssMb(workflowsPid());
  const all = Array.from({ length: EVENTS }, (_, i) => event(`segment.s${i % ENDPOINTS}.entry`, "segment"));
  const meter = cpuMeter({ workflows: workflowsPid(), receiver: receiver.pid }, { postgres: platform.prefix, selfName: "benchProcess" });
  const t0 = Date.now();
  for (let i = 0; i < all.length; i += BATCH) await publishBatch(all.slice(i, i + BATCH), "segment");
  await until(paths, EVENTS, "every delivery");
  const mailroomMs = Date.now() - t0;
  results.mailroom = { seconds: mailroomMs / 1000, perSecond: Math.round(EVENTS / (mailroomMs / 1000)), cpuMsPerDelivery: meter.perItemMs(EVENTS) };
  results.rssAfterThroughputMb = rssMb(workflowsPid());

  // the bare loop: the same bodies, signed, POSTed with the same concurrency over keep-alive
  await receiver.reset();
  const agent = new http.Agent({ keepAlive: true, maxSockets: ENDPOINTS * PER_ENDPOINT });
  const post = (path, body, secret, id) =>
    new Promise((resolve, reject) => {
      const ts = Math.floor(Date.now() / 1000);
      const sig = createHmac("sha256", Buffer.from(secret.slice(6), "base64")).update(`${id}.${ts}.${body}`).digest("base64");
      const req = http.request(
        { host: "127.0.0.1", port: receiver.port, path, method: "POST", agent, headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": `v1,${sig}` } },
        (res) => {
          res.resume();
          res.on("end", resolve);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  const bareMeter = cpuMeter({ receiver: receiver.pid }, { selfName: "benchProcess" });
  const t1 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: ENDPOINTS * PER_ENDPOINT }, async () => {
      while (next < all.length) {
        const i = next++;
        const e = all[i];
        const body = JSON.stringify({ type: e.name, timestamp: e.occurredAt, data: { ...e.data, contactId: e.contactId, email: e.email } });
        await post(`/t${i % ENDPOINTS}`, body, secrets[i % ENDPOINTS], e.id);
      }
    }),
  );
  const bareMs = Date.now() - t1;
  agent.destroy();
  results.bare = { seconds: bareMs / 1000, perSecond: Math.round(EVENTS / (bareMs / 1000)), cpuMsPerDelivery: bareMeter.perItemMs(EVENTS) };
  results.ratio = +(results.mailroom.perSecond / results.bare.perSecond).toFixed(2);

  // 2. latency at RATE events/s, one event per message
  await hook("/lat", ["email.open"]);
  const paced = async (name, family, rate, seconds) => {
    const n = rate * seconds;
    const start = performance.now();
    const sends = [];
    for (let i = 0; i < n; i++) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      const e = event(name, family);
      sends.push(js.publish(names.subjects.event(family, project.id), JSON.stringify(e), { msgID: e.id }));
    }
    await Promise.all(sends);
    return n;
  };
  // warm-up at the same rate, measured apart (JIT, statement plans), as the workflows benchmark does
  const warm = async (name, paths) => {
    await receiver.reset();
    const n = await paced(name, "email", RATE, WARMUP);
    await until(paths, n, `the warm-up of ${paths.join(", ")}`);
    await receiver.reset();
  };
  await warm("email.open", ["/lat"]);
  const latN = await paced("email.open", "email", RATE, SECONDS);
  await until(["/lat"], latN, "the latency run's deliveries");
  const lat = await receiver.latencies("/lat");
  results.latency = { rate: RATE, seconds: SECONDS, events: latN, p50Ms: pct(lat, 50), p99Ms: pct(lat, 99) };

  // 3. a healthy endpoint's p99 alone, then beside one that hangs on every call
  const isoRate = Math.min(RATE, 200);
  await hook("/healthy", ["email.click"]);
  await warm("email.click", ["/healthy"]);
  const aloneN = await paced("email.click", "email", isoRate, SECONDS);
  await until(["/healthy"], aloneN, "the healthy endpoint alone");
  const alone = await receiver.latencies("/healthy");
  await hook("/hang/forever", ["email.click"]);
  await receiver.reset();
  const besideN = await paced("email.click", "email", isoRate, SECONDS);
  await until(["/healthy"], besideN, "the healthy endpoint beside a hanging one");
  const beside = await receiver.latencies("/healthy");
  results.isolation = {
    rate: isoRate,
    aloneP50Ms: pct(alone, 50),
    aloneP99Ms: pct(alone, 99),
    besideP50Ms: pct(beside, 50),
    besideP99Ms: pct(beside, 99),
  };
  results.isolation.ratio = +(results.isolation.besideP99Ms / Math.max(1, results.isolation.aloneP99Ms)).toFixed(2);
  results.rssEndMb = rssMb(workflowsPid());
  results.peakRssMb = peakRssMb(workflowsPid());
} finally {
  await nc?.close();
  await platform.destroy();
  await receiver.stop();
}

const r = results;
writeResult(
  "webhooks",
  r,
  [
    `${r.events} events published on the events stream in batches of ${BATCH} (as producers' outboxes publish them), one tenth to each of ${r.endpoints} endpoints on a local receiver (a process of its own); ${r.perEndpoint} calls at once per endpoint. One workflows replica.`,
    "",
    "| deliveries | seconds | deliveries/s |",
    "|---|---|---|",
    `| Mailroom (event → delivery row → signed POST → recorded) | ${r.mailroom.seconds.toFixed(1)} | ${r.mailroom.perSecond} |`,
    `| bare loop: sign and POST the same bodies, ${r.endpoints * r.perEndpoint} at once | ${r.bare.seconds.toFixed(1)} | ${r.bare.perSecond} |`,
    "",
    `Ratio ${r.ratio} (target ≥ 0.5). CPU ms per delivery: Mailroom ${formatCpu(r.mailroom.cpuMsPerDelivery)}; bare ${formatCpu(r.bare.cpuMsPerDelivery)}.`,
    "",
    `Latency at ${r.latency.rate} events/s for ${r.latency.seconds} s (after ${WARMUP} s of warm-up at that rate, not counted), one event per message, from the event's time to its arrival: p50 ${r.latency.p50Ms} ms, p99 ${r.latency.p99Ms} ms (target p99 < 1,000 ms).`,
    "",
    `Isolation at ${r.isolation.rate} events/s: a healthy endpoint alone p50 ${r.isolation.aloneP50Ms} ms, p99 ${r.isolation.aloneP99Ms} ms; beside an endpoint that never answers (every call waits the 10 s timeout) p50 ${r.isolation.besideP50Ms} ms, p99 ${r.isolation.besideP99Ms} ms: ${r.isolation.ratio} of alone (target ≤ 1.2).`,
    "",
    `Workflows RSS (memory flat): ${r.rssBeforeMb} MB before the ${r.events}-event run, ${r.rssAfterThroughputMb} MB after it, ${r.rssEndMb} MB after the latency and isolation runs; ${r.peakRssMb} MB at its peak.`,
  ].join("\n"),
);
