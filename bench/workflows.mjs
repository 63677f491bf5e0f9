// npm run bench -- workflows
// 1. Latency from POST /v1/track to the first step's side effect (a WEBHOOK to a local receiver on an
//    allowed host) at a steady rate. 2. Throughput of a 5-step workflow (CONDITION, UPDATE_CONTACT,
//    DELAY of 1 minute on a fast clock, WEBHOOK, EXIT) over many contacts started by one SCHEDULE tick:
//    step transitions per second, from the step runs' own timestamps.
import { createServer } from "node:http";
import postgres from "postgres";
import { apiClient, Platform, DATABASE_URL, setProjectClockBeforeMinute } from "@mailroom/testkit";
import { BENCH_ENV, cpuSeconds, leanPoster, profiled, writeResult, size } from "./lib.mjs";

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = size("BENCH_DURATION", 10, 1);
const CONTACTS = size("BENCH_CONTACTS", 10_000, 200);

const arrivals = new Map();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const parsed = JSON.parse(body || "{}");
    if (parsed.sentAt) arrivals.set(parsed.seq, performance.timeOrigin + performance.now() - Number(parsed.sentAt));
    res.end("ok");
  });
});
await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
const port = receiver.address().port;

const platform = new Platform({
  services: ["gateway", "contacts", "workflows"],
  env: {
    ...BENCH_ENV,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${port}`,
    WORKFLOWS_TIME_SCALE: "6000", // the DELAY minute lasts 10 ms
    WORKFLOWS_CONCURRENCY: "64",
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
  },
  serviceEnv: profiled(),
});
await platform.start();
// CPU seconds each service process used so far (utime + stime), to show which stage is the busy one
const cpu = () =>
  Object.fromEntries(
    [...platform.procs].map(([name, ps]) => [name, cpuSeconds(ps[0].child.pid)]),
  );
const cpuSince = (c0) => {
  const c1 = cpu();
  return Object.fromEntries(Object.keys(c1).map((k) => [k, +(c1[k] - c0[k]).toFixed(1)]));
};
const cpuText = (c) => Object.entries(c).map(([k, v]) => `${k} ${v} s`).join(", ");
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
try {
  const project = await platform.createProject("bench");
  const api = apiClient(platform.url, project.secretKey);
  const make = async (eventName, steps) => {
    const wf = (await api.post("/workflows", { name: eventName, eventName })).body;
    let after = wf.steps[0].id;
    const ids = [];
    for (const s of steps) {
      const step = (await api.post(`/workflows/${wf.id}/steps`, { ...s, after: s.after === undefined ? after : ids[s.after] })).body;
      if (!step.id) throw new Error(JSON.stringify(step));
      ids.push(step.id);
      after = step.id;
    }
    return wf.id;
  };

  // 1. latency at RATE events/s
  const latencyWf = await make("bench.latency", [
    { type: "WEBHOOK", config: { url: `http://127.0.0.1:${port}/latency`, body: { seq: "{{ event.seq }}", sentAt: "{{ event.sentAt }}" } } },
  ]);
  await api.patch(`/workflows/${latencyWf}`, { enabled: true });
  const post = leanPoster(platform.url, project.secretKey);
  let trackErrors = 0;
  const answered = [];
  /** Posts `count` events at RATE per second, seq numbers `${tag}${i}`; resolves when all are answered. */
  const paced = async (tag, count, record) => {
    const started = performance.now();
    const sends = [];
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const sentAt = performance.timeOrigin + performance.now();
      sends.push(
        post("/v1/track", { email: `lat-${tag}${i}@bench.test`, event: "bench.latency", data: { seq: `${tag}${i}`, sentAt: String(sentAt) } }).then((status) => {
          if (!record) return;
          if (status !== 200) trackErrors++;
          answered.push(performance.timeOrigin + performance.now() - sentAt);
        }),
      );
    }
    await Promise.all(sends);
  };
  // The first seconds after start-up run cold (JIT, plan and connection caches, pools filling): they
  // are posted at the same rate but measured apart, as the warm-up of the HTTP benchmarks is.
  const WARMUP = size("BENCH_WARMUP", 3, 1);
  await paced("w", RATE * WARMUP, false);
  const total = RATE * SECONDS;
  const latencyCpu = cpu();
  await paced("", total, true);
  const deadline = Date.now() + 30_000;
  const measured = () => [...arrivals].filter(([k]) => !k.startsWith("w"));
  while (measured().length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const lat = measured().map(([, v]) => v).sort((a, b) => a - b);
  const warmupLat = [...arrivals].filter(([k]) => k.startsWith("w")).map(([, v]) => v).sort((a, b) => a - b);
  answered.sort((a, b) => a - b);
  const latency = {
    events: total,
    delivered: lat.length,
    p50Ms: +pct(lat, 50).toFixed(1),
    p99Ms: +pct(lat, 99).toFixed(1),
    // the POST /v1/track answer alone (gateway + contacts): the part of the latency before the event exists
    trackP50Ms: +pct(answered, 50).toFixed(1),
    trackP99Ms: +pct(answered, 99).toFixed(1),
    trackErrors,
    cpuSeconds: cpuSince(latencyCpu),
    warmup: { seconds: WARMUP, events: RATE * WARMUP, delivered: warmupLat.length, p50Ms: +pct(warmupLat, 50).toFixed(1), p99Ms: +pct(warmupLat, 99).toFixed(1) },
  };
  console.log("latency", JSON.stringify(latency));
  // BENCH_ONLY=latency: a quick look at the first part while working on it; no result file
  if (process.env.BENCH_ONLY !== "latency") await throughputAndReport(api, make, latency, project.id);
} finally {
  await platform.destroy();
  receiver.close();
}

async function throughputAndReport(api, make, latency, projectId) {

  // 2. throughput of a 5-step workflow over CONTACTS contacts started by one SCHEDULE tick
  for (let i = 0; i < CONTACTS; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, CONTACTS - i) }, (_, j) => api.post("/contacts", { email: `tp-${i + j}@bench.test`, data: { bench: 1 } })),
    );
  }
  const tpWf = await make("bench.throughput", [
    { type: "CONDITION", config: { field: "data.bench", operator: "equals", value: 1 } },
    { type: "UPDATE_CONTACT", config: { data: { seen: true } } },
    { type: "DELAY", config: { amount: 1, unit: "minutes" } },
    { type: "WEBHOOK", config: { url: `http://127.0.0.1:${port}/throughput` } },
    { type: "EXIT", config: { reason: "done" } },
  ]);
  await api.patch(`/workflows/${tpWf}`, { enabled: true, triggerType: "SCHEDULE", triggerConfig: { cron: "* * * * *" } });
  // the tick comes a second and a half from now, not after up to a minute of idle waiting
  setProjectClockBeforeMinute(platform.env, projectId);
  const throughputCpu = cpu();
  const sql = postgres(DATABASE_URL.replace(/\/[^/]*$/, `/${platform.prefix}_workflows`), { max: 1 });
  // the latency run's contacts are subscribed too: every subscribed contact enters; theirs take the
  // CONDITION's `no` branch, which has no edge, and end COMPLETED after two step runs
  const audience = CONTACTS + latency.warmup.events + latency.events;
  let row;
  const until = Date.now() + 60_000 + 30 * 60_000;
  for (;;) {
    [row] = await sql`select count(*)::int as n, count(*) filter (where status not in ('RUNNING', 'WAITING'))::int as done,
      min(started_at) as first, max(finished_at) as last from executions where workflow_id = ${tpWf}`;
    if ((row.n >= audience && row.done === row.n) || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const [{ runs }] = await sql`select count(*)::int as runs from step_runs r join executions e on e.id = r.execution_id where e.workflow_id = ${tpWf}`;
  await sql.end();
  const seconds = (new Date(row.last) - new Date(row.first)) / 1000;
  const throughput = {
    executions: row.n,
    finished: row.done,
    stepRuns: runs,
    seconds: +seconds.toFixed(2),
    transitionsPerSec: Math.round(runs / seconds),
    cpuSeconds: cpuSince(throughputCpu),
  };

  const md = [
    `Latency: ${RATE} events/s for ${SECONDS} s through POST /v1/track → EVENT trigger → WEBHOOK to a local receiver,`,
    `after ${latency.warmup.seconds} s of warm-up at the same rate right after start-up (cold: p50 ${latency.warmup.p50Ms} ms, p99 ${latency.warmup.p99Ms} ms; not in the table).`,
    "",
    "| events | delivered | p50 ms | p99 ms | track answer p50 ms | track answer p99 ms | track errors |",
    "|---|---|---|---|---|---|---|",
    `| ${latency.events} | ${latency.delivered} | ${latency.p50Ms} | ${latency.p99Ms} | ${latency.trackP50Ms} | ${latency.trackP99Ms} | ${latency.trackErrors} |`,
    "",
    `CPU used meanwhile: ${cpuText(latency.cpuSeconds)}. The events are posted over keep-alive node:http (fetch cost the load generator ~1.5 ms of CPU per request on the same cores).`,
    "",
    `Targets: p50 < 30 ms, p99 < 250 ms. Throughput: one SCHEDULE tick starts ${throughput.executions} executions of`,
    "CONDITION → UPDATE_CONTACT → DELAY 1 min (WORKFLOWS_TIME_SCALE=6000: 10 ms) → WEBHOOK → EXIT (plus the TRIGGER step run).",
    "",
    "| executions | finished | step runs | seconds | transitions/s |",
    "|---|---|---|---|---|",
    `| ${throughput.executions} | ${throughput.finished} | ${throughput.stepRuns} | ${throughput.seconds} | ${throughput.transitionsPerSec} |`,
    "",
    `CPU used meanwhile: ${cpuText(throughput.cpuSeconds)}.`,
    "",
    "Target ≥ 1,000 transitions/s. One workflows replica; gateway, contacts, PostgreSQL and NATS share the same cores;",
    "every service's pool is DB_POOL_MAX=10 (the production default, not the testkit's 4).",
  ].join("\n");
  writeResult("workflows", { latency, throughput }, md);
}
