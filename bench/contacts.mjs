// npm run bench -- contacts
// 1. /v1/track throughput through the gateway against a bare fastify route doing the same SQL
//    (contact upsert + event insert) in-process (in a process of its own, as the gateway and the
//    contacts service are: bench/baseline.mjs says why), same run, same concurrency.
// 2. List and search latency on a project with 1,000,000 contacts seeded with COPY: first page with
//    `total`, a deep page by cursor, a substring search; the same SQL run directly is the baseline.
import postgres from "postgres";
import { randomUUID } from "node:crypto";
import { v7 } from "uuid";
import { Platform, apiClient } from "@mailroom/testkit";
import { CursorCodec } from "../services/contacts/dist/domain/cursor.js";
import { alternate, formatCpu, load, peakRssMb, startBaseline, writeResult, BENCH_ENV, profiled, size } from "./lib.mjs";

const CONTACTS = size("BENCH_CONTACTS", 1_000_000, 2000);
const SAMPLES = size("BENCH_SAMPLES", 60, 5);
const DURATION = size("BENCH_DURATION", 10, 1);
const CONNECTIONS = 50;
/** Rounds of the two /v1/track paths, alternated (lib.mjs alternate()). */
const ROUNDS = size("BENCH_ROUNDS", 3, 1);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
async function timed(n, fn) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50Ms: +percentile(ms, 50).toFixed(1), p99Ms: +percentile(ms, 99).toFixed(1) };
}

const platform = new Platform({ services: ["gateway", "contacts"], env: { ...BENCH_ENV }, serviceEnv: profiled() });
await platform.start();
const dbUrl = `${platform.env.DATABASE_URL.replace(/\/[^/]*$/, "")}/${platform.prefix}_contacts`;
const sql = postgres(dbUrl, { max: 20, onnotice: () => undefined });
let bare;
try {
  // --- 1. /v1/track throughput
  const trackProject = await platform.createProject("track");
  const key = JSON.parse(await platform.cli(["keys", "create", "--project", trackProject.id, "--kind", "secret", "--rate-limit", "1000000", "--json"])).key;
  const emails = Array.from({ length: 5000 }, (_, i) => `t${i}@bench.example`);
  let n = 0;
  const trackBody = () => JSON.stringify({ email: emails[n++ % emails.length], event: "bench.viewed", data: { plan: "pro" } });

  bare = await startBaseline("track", { BASELINE_DATABASE_URL: dbUrl, BASELINE_PROJECT_ID: randomUUID() });
  const bareUrl = `${bare.url}/track`;
  const post = (url, headers = {}) => ({ url, method: "POST", headers: { "content-type": "application/json", ...headers }, requests: [{ method: "POST", setupRequest: (r) => ({ ...r, body: trackBody() }) }] });

  await load({ ...post(bareUrl), connections: CONNECTIONS, duration: 2, title: "warm bare" });
  await load({ ...post(`${platform.url}/v1/track`, { authorization: `Bearer ${key}` }), connections: CONNECTIONS, duration: 2, title: "warm" });
  // Alternated rounds (lib.mjs alternate()): a neighbour's busy spell weighs on both paths.
  const [bareTrack, track] = await alternate(
    [
      { name: "bare", cpu: { server: bare.pid }, cpuOptions: { postgres: true, selfName: "loadGenerator" }, run: (duration) => load({ ...post(bareUrl), connections: CONNECTIONS, duration, title: "bare" }) },
      {
        name: "track",
        cpu: { gateway: platform.procs.get("gateway")[0].child.pid, contacts: platform.procs.get("contacts")[0].child.pid },
        cpuOptions: { postgres: true, selfName: "loadGenerator" },
        run: (duration) => load({ ...post(`${platform.url}/v1/track`, { authorization: `Bearer ${key}` }), connections: CONNECTIONS, duration, title: "track" }),
      },
    ],
    { rounds: ROUNDS, duration: DURATION },
  );
  await bare.close();

  // --- 2. 1M contacts
  const big = await platform.createProject("big");
  const seedStart = Date.now();
  const stream = await sql`copy contacts (id, project_id, email, subscribed, data, created_at, updated_at) from stdin`.writable();
  const now = new Date().toISOString();
  for (let i = 0; i < CONTACTS; i++) {
    const line = `${v7()}\t${big.id}\tuser${i}@domain${i % 997}.example\t${i % 10 === 0 ? "f" : "t"}\t{"plan":"${i % 3 === 0 ? "pro" : "free"}","n":${i}}\t${now}\t${now}\n`;
    if (!stream.write(line)) await new Promise((r) => stream.once("drain", r));
  }
  await new Promise((resolve, reject) => stream.end((err) => (err ? reject(err) : resolve())));
  await sql`vacuum analyze contacts`;
  const seedSeconds = (Date.now() - seedStart) / 1000;

  const api = apiClient(platform.url, big.secretKey);
  const codec = new CursorCodec(platform.env.MAILROOM_SECRET);
  const deepIds = await sql`select id from contacts where project_id = ${big.id} order by id offset ${Math.floor(CONTACTS / 2)} limit ${SAMPLES}`;
  const check = (res) => {
    if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
  };
  const firstPage = await timed(20, async () => check(await api.get("/contacts?limit=20")));
  const deepPage = await timed(SAMPLES, async (i) => check(await api.get(`/contacts?limit=20&cursor=${codec.encode(`contacts:${big.id}`, deepIds[i].id)}`)));
  const search = await timed(SAMPLES, async (i) => check(await api.get(`/contacts?limit=20&search=user${(i * 7919) % CONTACTS}@domain`)));
  const sqlDeep = await timed(SAMPLES, async (i) => sql`select * from contacts where project_id = ${big.id} and id > ${deepIds[i].id} order by id limit ${21}`);
  const sqlSearch = await timed(SAMPLES, async (i) => sql`select * from contacts where project_id = ${big.id} and lower(email) like ${`%user${(i * 7919) % CONTACTS}@domain%`} order by id limit ${21}`);
  const sqlCount = await timed(5, async () => sql`select count(*) from contacts where project_id = ${big.id}`);

  const rss = { gatewayMb: peakRssMb(platform.procs.get("gateway")[0].child.pid), contactsMb: peakRssMb(platform.procs.get("contacts")[0].child.pid) };
  const md = [
    `### /v1/track (${CONNECTIONS} connections, ${ROUNDS} alternated rounds of ${DURATION} s per path, the median round shown)`,
    "",
    "| path | req/s | p50 ms | p99 ms | non-2xx | req/s per round | ratio per round |",
    "|---|---|---|---|---|---|---|",
    `| bare fastify: same upsert + insert in-process, in a process of its own (baseline) | ${bareTrack.requestsPerSec} | ${bareTrack.p50Ms} | ${bareTrack.p99Ms} | ${bareTrack.non2xx} | ${bareTrack.rounds.join(", ")} | |`,
    `| /v1/track through gateway → contacts (+ outbox events) | ${track.requestsPerSec} | ${track.p50Ms} | ${track.p99Ms} | ${track.non2xx} | ${track.rounds.join(", ")} | ${track.roundRatios.join(", ")} |`,
    "",
    `Throughput ratio **${track.ratio.toFixed(2)}** (median of the rounds; target ≥ 0.5). CPU per request (µs): ${formatCpu(track.cpuUsPerRequest)}; bare route: ${formatCpu(bareTrack.cpuUsPerRequest)}.`,
    "",
    `### ${CONTACTS.toLocaleString("en")} contacts (seeded with COPY in ${seedSeconds.toFixed(0)} s), sequential requests through the gateway`,
    "",
    "| request | p50 ms | p99 ms | same SQL direct p50 / p99 ms | target |",
    "|---|---|---|---|---|",
    `| first page with \`total\` | ${firstPage.p50Ms} | ${firstPage.p99Ms} | count(*) alone ${sqlCount.p50Ms} / ${sqlCount.p99Ms} | — |`,
    `| deep page by cursor (middle of the table) | ${deepPage.p50Ms} | ${deepPage.p99Ms} | ${sqlDeep.p50Ms} / ${sqlDeep.p99Ms} | p99 < 50 |`,
    `| substring search on email | ${search.p50Ms} | ${search.p99Ms} | ${sqlSearch.p50Ms} / ${sqlSearch.p99Ms} | p99 < 200 |`,
    "",
    `Peak RSS: gateway ${rss.gatewayMb} MB, contacts ${rss.contactsMb} MB.`,
  ].join("\n");
  writeResult("contacts", { track, bareTrack, firstPage, deepPage, search, sqlDeep, sqlSearch, sqlCount, seedSeconds, rss }, md);
} finally {
  await bare?.close();
  await sql.end();
  await platform.destroy();
}
