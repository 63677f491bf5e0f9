// npm run bench -- segments
// 1. memberCount and the first members page of a three-condition segment (a data field, an event
//    window, subscription) over BENCH_CONTACTS contacts and BENCH_EVENTS_PER_CONTACT events each,
//    seeded with COPY, untracked (live SQL) and tracked (recorded members), against same-run
//    baselines: a plain count(*) of the project in SQL, and GET /contacts (first page with its total).
// 2. The time from a PATCH to the `segment.<slug>.entry` event on JetStream at BENCH_RATE changes/s
//    with 50 tracked segments, every one of which the change makes the tracker evaluate.
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import postgres from "postgres";
import { connect } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { wireNames } from "@mailroom/contracts";
import { newId } from "@mailroom/kit";
import { Platform } from "@mailroom/testkit";
import { writeResult, BENCH_ENV, profiled, size } from "./lib.mjs";

const CONTACTS = size("BENCH_CONTACTS", 1_000_000, 2000);
const EVENTS_PER_CONTACT = Number(process.env.BENCH_EVENTS_PER_CONTACT ?? 5);
const SAMPLES = size("BENCH_SAMPLES", 30, 3);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const CHANGE_SECONDS = size("BENCH_CHANGE_SECONDS", 15, 2);
const TRACKED = 50;
const DAY = 86_400_000;

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10 : null;
};
const stats = (xs) => ({ n: xs.length, p50Ms: quantile(xs, 0.5), p99Ms: quantile(xs, 0.99) });

async function timed(fn) {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

/** Sequential timings of `fn` after two warm-up calls. */
async function sample(fn, n = SAMPLES) {
  await fn();
  await fn();
  const out = [];
  for (let i = 0; i < n; i++) out.push((await timed(fn))[0]);
  return stats(out);
}

function api(base, key) {
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  return { get: (p) => call("GET", p), post: (p, b) => call("POST", p, b), patch: (p, b) => call("PATCH", p, b) };
}

/** COPY rows (arrays of text values, already escaped) from a generator. */
async function copy(sql, table, columns, rows) {
  const writable = await sql.unsafe(`copy ${table} (${columns.join(", ")}) from stdin`).writable();
  async function* lines() {
    let buf = "";
    for (const row of rows) {
      buf += `${row.join("\t")}\n`;
      if (buf.length > 1 << 20) {
        yield buf;
        buf = "";
      }
    }
    if (buf) yield buf;
  }
  await pipeline(Readable.from(lines()), writable);
}

const PLANS = ["free", "pro", "team", "enterprise"];
const EVENT_NAMES = ["page_view", "purchase", "signup", "login", "click"];

async function seed(sql, projectId, n, eventsPer, { data = (i) => ({ plan: PLANS[i % 4], age: i % 90 }), subscribed = (i) => i % 10 !== 0 } = {}) {
  const now = Date.now();
  const ids = Array.from({ length: n }, () => newId());
  const [contactsMs] = await timed(() =>
    copy(
      sql,
      "contacts",
      ["id", "project_id", "email", "subscribed", "data", "created_at", "updated_at"],
      (function* () {
        for (let i = 0; i < n; i++) {
          const at = new Date(now - (n - i) * 10).toISOString();
          yield [ids[i], projectId, `c${i}@bench.example`, subscribed(i) ? "t" : "f", JSON.stringify(data(i)), at, at];
        }
      })(),
    ),
  );
  const [eventsMs] = await timed(() =>
    copy(
      sql,
      "contact_events",
      ["id", "project_id", "contact_id", "name", "data", "created_at"],
      (function* () {
        for (let i = 0; i < n * eventsPer; i++) {
          // spread over the last 90 days, names round-robin, contacts pseudo-randomly
          const contact = ids[(i * 7919) % n];
          yield [randomUUID(), projectId, contact, EVENT_NAMES[i % EVENT_NAMES.length], "{}", new Date(now - ((i * 104729) % (90 * DAY))).toISOString()];
        }
      })(),
    ),
  );
  const [analyzeMs] = await timed(() => sql`vacuum analyze contacts, contact_events`);
  // Flush the seed's dirty pages now, so a checkpoint does not land in the middle of a measurement.
  await sql`checkpoint`;
  return { ids, seedMs: { contacts: Math.round(contactsMs), events: Math.round(eventsMs), vacuumAnalyze: Math.round(analyzeMs) } };
}

const platform = new Platform({ services: ["gateway", "contacts"], env: { ...BENCH_ENV }, serviceEnv: profiled() });
await platform.start();
const dbUrl = new URL(platform.env.DATABASE_URL);
dbUrl.pathname = `/${platform.prefix}_contacts`;
const sql = postgres(dbUrl.toString(), { max: 2, onnotice: () => undefined });
const nc = await connect({ servers: platform.env.NATS_URL });
try {
  // ---- 1. counts and first pages over a large project
  const big = await platform.createProject("bench-segments");
  const bigApi = api(platform.url, big.secretKey);
  console.log(`seeding ${CONTACTS} contacts and ${CONTACTS * EVENTS_PER_CONTACT} events with COPY…`);
  const { seedMs } = await seed(sql, big.id, CONTACTS, EVENTS_PER_CONTACT);
  console.log("seeded", seedMs);
  const filters = {
    logic: "AND",
    groups: [
      {
        filters: [
          { field: "data.plan", operator: "equals", value: "pro" },
          { field: "event.purchase", operator: "triggeredWithin", value: 30, unit: "days" },
          { field: "subscribed", operator: "equals", value: true },
        ],
      },
    ],
  };
  const segment = await bigApi.post("/segments", { name: "Pro buyers", filters });
  const baselineSql = await sample(() => sql`select count(*)::int from contacts where project_id = ${big.id}`);
  const baselineList = await sample(() => bigApi.get("/contacts?limit=100"));
  const untrackedCount = await sample(() => bigApi.get(`/segments/${segment.id}`));
  const untrackedPage = await sample(() => bigApi.get(`/segments/${segment.id}/contacts?limit=100`));
  // A switch that outlasts the gateway's RPC timeout answers 503 but still commits: wait for it.
  let switchAnswer = "200";
  const [switchOnMs, tracked] = await timed(async () => {
    try {
      return await bigApi.patch(`/segments/${segment.id}`, { trackMembership: true });
    } catch (err) {
      switchAnswer = String(err).includes(": 503 ") ? "503 (past the RPC timeout; committed later)" : String(err);
      for (;;) {
        const s = await bigApi.get(`/segments/${segment.id}`);
        if (s.trackMembership) return s;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });
  // Members whose answer can flip with time got a due time of now; the scheduler works them off in
  // the background. Measured, and waited for, so it does not overlap the latency measurement below.
  const [drainMs, seededDue] = await timed(async () => {
    const [{ n }] = await sql`select count(*)::int as n from segment_due where segment_id = ${segment.id}`;
    while ((await sql`select 1 from segment_due where segment_id = ${segment.id} and due_at <= now() limit 1`).length > 0) {
      await new Promise((r) => setTimeout(r, 500));
    }
    return n;
  });
  await sql`vacuum analyze segment_members, segment_due`;
  const trackedCount = await sample(() => bigApi.get(`/segments/${segment.id}`));
  const trackedPage = await sample(() => bigApi.get(`/segments/${segment.id}/contacts?limit=100`));
  const memberCount = tracked.memberCount;

  // ---- 2. PATCH → segment.<slug>.entry at RATE changes/s with 50 tracked segments
  const live = await platform.createProject("bench-segment-events");
  const liveApi = api(platform.url, live.secretKey);
  const changes = RATE * CHANGE_SECONDS;
  const { ids } = await seed(sql, live.id, changes, 2, { data: () => ({ score: 0, plan: "pro" }), subscribed: () => true });
  // Every segment reads data.score, so each change is evaluated against all 50; only segment 0 (the
  // target) matches. The others also read events or another data field, as real segments would.
  const segments = [];
  for (let i = 0; i < TRACKED; i++) {
    const conditions = [
      { field: "data.score", operator: "greaterThanOrEqual", value: 100 + i * 1000 },
      { field: "subscribed", operator: "equals", value: true },
    ];
    if (i % 3 === 1) conditions.push({ field: "event.purchase", operator: "notTriggeredWithin", value: 365, unit: "days" });
    if (i % 3 === 2) conditions.push({ field: "data.plan", operator: "notEquals", value: "free" });
    segments.push(await liveApi.post("/segments", { name: `Bench ${i}`, trackMembership: true, filters: { logic: "AND", groups: [{ filters: conditions }] } }));
  }
  const target = segments[0];
  await sql`checkpoint`;
  const names = wireNames(platform.prefix);
  const consumer = await jetstream(nc).consumers.get(names.streams.events.name, { filterSubjects: names.subjects.event("segment", live.id) });
  const messages = await consumer.consume();
  const sentAt = new Map();
  const latencies = [];
  let expected = 0;
  const received = (async () => {
    for await (const m of messages) {
      const e = m.json();
      const t0 = sentAt.get(e.contactId);
      if (t0 !== undefined && e.data.segmentId === target.id && e.name.endsWith(".entry")) latencies.push([t0, performance.now() - t0]);
      if (latencies.length >= expected && expected > 0) break;
    }
  })();
  const patchMs = [];
  const errors = [];
  const start = performance.now();
  const inflight = [];
  for (let i = 0; i < ids.length; i++) {
    expected++;
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const id = ids[i];
    const t0 = performance.now();
    sentAt.set(id, t0);
    inflight.push(
      liveApi.patch(`/contacts/${id}`, { data: { score: 101 } }).then(
        () => patchMs.push(performance.now() - t0),
        (err) => errors.push(String(err)),
      ),
    );
  }
  const sendSeconds = (performance.now() - start) / 1000;
  await Promise.all(inflight);
  await Promise.race([received, new Promise((r) => setTimeout(r, 15_000))]);
  await messages.close();
  const byTime = latencies.sort((a, b) => a[0] - b[0]).map(([, ms]) => ms);

  const result = {
    contacts: CONTACTS,
    events: CONTACTS * EVENTS_PER_CONTACT,
    seedMs,
    memberCount,
    baselineCountSql: baselineSql,
    baselineContactsFirstPage: baselineList,
    untracked: { memberCount: untrackedCount, firstPage: untrackedPage },
    switchTrackingOnMs: Math.round(switchOnMs),
    switchTrackingOnAnswer: switchAnswer,
    dueTimesAtSwitchOn: seededDue,
    dueTimesWorkedOffMs: Math.round(drainMs),
    tracked: { memberCount: trackedCount, firstPage: trackedPage },
    changes: {
      rate: RATE,
      achievedRate: Math.round((expected / sendSeconds) * 10) / 10,
      trackedSegments: TRACKED,
      sent: expected,
      entries: latencies.length,
      // a backlog shows as the last changes waiting longer than the first ones
      firstTenthP50Ms: stats(byTime.slice(0, Math.ceil(byTime.length / 10))).p50Ms,
      lastTenthP50Ms: stats(byTime.slice(-Math.ceil(byTime.length / 10))).p50Ms,
      errors: errors.length,
      patchToEntry: stats(byTime),
      patchHttp: stats(patchMs),
    },
  };
  const row = (label, s) => `| ${label} | ${s.p50Ms} | ${s.p99Ms} |`;
  const md = [
    `Three-condition segment (\`data.plan equals pro\`, \`event.purchase triggeredWithin 30 days\`, \`subscribed equals true\`) over ${CONTACTS.toLocaleString("en")} contacts and ${(CONTACTS * EVENTS_PER_CONTACT).toLocaleString("en")} events in one project (seeded with COPY: contacts ${seedMs.contacts} ms, events ${seedMs.events} ms, vacuum analyze ${seedMs.vacuumAnalyze} ms); ${memberCount.toLocaleString("en")} members. ${SAMPLES} sequential requests each through the gateway (target < 500 ms).`,
    "",
    "| request | p50 ms | p99 ms |",
    "|---|---|---|",
    row("baseline: `select count(*)` of the project (SQL, no HTTP)", baselineSql),
    row("baseline: `GET /contacts?limit=100` (first page + exact total)", baselineList),
    row("`GET /segments/{id}` untracked (live memberCount)", untrackedCount),
    row("`GET /segments/{id}/contacts?limit=100` untracked", untrackedPage),
    row("`GET /segments/{id}` tracked (recorded members)", trackedCount),
    row("`GET /segments/{id}/contacts?limit=100` tracked", trackedPage),
    "",
    `Switching tracking on (recording ${memberCount.toLocaleString("en")} members without events): ${Math.round(switchOnMs)} ms (PATCH answered ${switchAnswer}); ${seededDue.toLocaleString("en")} of them can leave by time alone and got a due time of now, which the scheduler turned into their real boundary in ${Math.round(drainMs)} ms in the background.`,
    "",
    `PATCH → \`segment.<slug>.entry\` on JetStream: ${expected} changes at ${result.changes.achievedRate}/s (asked ${RATE}/s), ${TRACKED} tracked segments all read by each change; ${latencies.length} entries received, ${errors.length} PATCH errors (targets p50 < 100 ms, p99 < 1 s).`,
    "",
    "| measure | p50 ms | p99 ms |",
    "|---|---|---|",
    row("PATCH sent → entry event received", result.changes.patchToEntry),
    row("PATCH HTTP round trip (reference)", result.changes.patchHttp),
    "",
    `p50 of the first tenth of the changes ${result.changes.firstTenthP50Ms} ms, of the last tenth ${result.changes.lastTenthP50Ms} ms (equal when the tracker keeps up).`,
  ].join("\n");
  writeResult("segments", result, md);
} finally {
  await nc.close().catch(() => undefined);
  await sql.end({ timeout: 2 }).catch(() => undefined);
  await platform.destroy();
}
