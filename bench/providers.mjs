// npm run bench -- providers
// Per-provider delivery limits (DELIVERY_LIMITS, decisions.md §18) under a campaign: N contacts
// (BENCH_RECIPIENTS, default 100,000) at four recipient domains whose MX records (a DNS server of the
// bench's own) name four providers, each given a perMinute limit; the limits add up to less than the
// bare pool's rate measured in the same run, so the limits, not the pool, set the pace. Recipients
// are shared among the providers in proportion to their limits, so all four are busy to the end.
// Meanwhile one transactional /v1/send a second goes to a fifth domain (no limit of its own), timed
// from the request to its arrival in the sink.
// Reported: each provider's achieved rate against its limit (first to last arrival in the sink), the
// whole against the sum of the limits, the bare pool's rate, and the transactional sends' p50/p99.
import nodemailer from "nodemailer";
import { Platform, apiClient, startDnsServer } from "@mailroom/testkit";
import { BENCH_ENV, machine, percentile, profiled, seedContacts, SMOKE, size, writeResult } from "./lib.mjs";
import { startSinkProcess } from "./sink.mjs";

const N = size("BENCH_RECIPIENTS", 100_000, 400);
const POOL = Number(process.env.BENCH_SMTP_POOL ?? 10);
const CONCURRENCY = Number(process.env.BENCH_DELIVERY_CONCURRENCY ?? 64);
const SERVICES = ["gateway", "contacts", "sending", "campaigns"];
/** Limits a minute; the smoke run halves them, so its 400 recipients take a few seconds. */
const SCALE = SMOKE ? 0.5 : 1;
const PROVIDERS = [
  { provider: "alpha-mx.net", domain: "alpha.bench.example", perMinute: 12_000 * SCALE },
  { provider: "beta-mx.net", domain: "beta.bench.example", perMinute: 6_000 * SCALE },
  { provider: "gamma-mx.net", domain: "gamma.bench.example", perMinute: 3_000 * SCALE },
  { provider: "delta-mx.net", domain: "delta.bench.example", perMinute: 1_200 * SCALE },
];
const T_DOMAIN = "t.bench.example";
const SUM = PROVIDERS.reduce((s, p) => s + p.perMinute, 0);
const subject = "Spring news for {{ firstName }}";
const body = `<p>Hi {{ firstName }},</p><p>${"Our spring catalogue is here. ".repeat(20)}</p>`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Contact i's provider: a repeating pattern weighted exactly by the limits (each limit over their
 * greatest common divisor: 20, 10, 5 and 2 in 37). A pattern of 100 rounded gamma up to 14 and delta
 * down to 5, so gamma's limit paced the whole campaign and delta was measured at 0.89 of a limit its
 * share of the recipients could not reach.
 */
const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
const unit = PROVIDERS.reduce((g, p) => gcd(g, p.perMinute), 0);
const pattern = PROVIDERS.flatMap((p, k) => Array.from({ length: p.perMinute / unit }, () => k));
const address = (i) => `r${i}@${PROVIDERS[pattern[i % pattern.length]].domain}`;

const sink = await startSinkProcess({ timed: [T_DOMAIN, ...PROVIDERS.map((p) => p.domain)] });
const dns = await startDnsServer({
  zones: Object.fromEntries(PROVIDERS.map((p) => [p.domain, { MX: [{ exchange: `mx1.${p.provider}`, priority: 10 }] }])),
});
const limits = Object.fromEntries(PROVIDERS.map((p) => [p.provider, { connections: 16, perMinute: p.perMinute }]));
const platform = new Platform({
  services: SERVICES,
  env: { ...BENCH_ENV, SMTP_URL: sink.url, RETURN_PATH_DOMAIN: "bounces.bench.test", DNS_SERVER: dns.address, DELIVERY_LIMITS: JSON.stringify(limits) },
  serviceEnv: profiled({
    campaigns: { LOG_LEVEL: process.env.BENCH_CAMPAIGNS_LOG ?? "warn" },
    sending: { SMTP_POOL_SIZE: String(POOL), DELIVERY_CONCURRENCY: String(CONCURRENCY) },
  }),
});

/** The bare pool's rate to the same sink (unsigned: an upper bound the limits must stay under). */
async function bare(count) {
  const transport = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: POOL, maxMessages: Infinity });
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await transport.sendMail({ from: "news@bench.mailroom.test", to: address(i), subject: "bare", html: body });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  transport.close();
  const seconds = (Date.now() - started) / 1000;
  await sink.reset();
  return { seconds, emailsPerSec: Math.round(count / seconds), perMinute: Math.round((count / seconds) * 60) };
}

/** One /v1/send a second to T_DOMAIN until stopped; then each one's request-to-sink latency. */
function transactional(api, from) {
  const sent = new Map();
  let stopped = false;
  const loop = (async () => {
    const start = Date.now();
    for (let n = 0; !stopped; n++) {
      const to = `t${n}@${T_DOMAIN}`;
      sent.set(to, Date.now());
      api.post("/v1/send", { to, from, subject: "Your code", body: "<p>123456</p>" }).catch(() => {});
      await sleep(start + (n + 1) * 1000 - Date.now());
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const deadline = Date.now() + 60_000;
      let arrived = new Map();
      while (Date.now() < deadline) {
        arrived = new Map((await sink.arrivals()).filter(([to]) => to.endsWith(`@${T_DOMAIN}`)));
        if ([...sent.keys()].every((to) => arrived.has(to))) break;
        await sleep(250);
      }
      const latencies = [...sent].filter(([to]) => arrived.has(to)).map(([to, t0]) => arrived.get(to) - t0).sort((a, b) => a - b);
      return { sent: sent.size, arrived: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    },
  };
}

await platform.start();
try {
  const project = await platform.createProject("bench");
  const api = apiClient(platform.url, project.secretKey);
  const senderDomain = "bench.mailroom.test";
  await platform.cli(["domains", "verify", "--project", project.id, "--domain", senderDomain, "--json"]);
  const from = `news@${senderDomain}`;
  await seedContacts(platform, project.id, N, address);
  const pool = await bare(Math.min(N, SMOKE ? 400 : 20_000));

  const c = (await api.post("/campaigns", { name: "providers", subject, body, from, audienceType: "ALL" })).body.data;
  const started = Date.now();
  const res = await api.post(`/campaigns/${c.id}/send`);
  if (res.status !== 200) throw new Error(`send answered ${res.status}: ${JSON.stringify(res.body)}`);
  const sends = transactional(api, from);
  let stats;
  for (;;) {
    await sleep(500);
    const now = (await api.get(`/campaigns/${c.id}`)).body;
    if (now.status === "SENT") {
      stats = now.stats;
      break;
    }
    if (Date.now() - started > 3 * 3600_000) throw new Error(`campaign not SENT after three hours: ${JSON.stringify(now.stats)}`);
  }
  const latency = await sends.stop();
  // each provider's arrivals, in order; its rate is taken past the bucket's first quarter second of
  // burst (what a run of a few seconds would otherwise count as speed) to its last arrival
  const times = new Map(PROVIDERS.map((p) => [p.domain, []]));
  for (const [to, at] of await sink.arrivals()) times.get(to.slice(to.lastIndexOf("@") + 1))?.push(at);
  const rows = PROVIDERS.map((p) => {
    const t = times.get(p.domain);
    const steady = t.slice(Math.ceil(p.perMinute / 60 / 4));
    const perMinute = steady.length > 1 ? Math.round(((steady.length - 1) / (steady.at(-1) - steady[0])) * 60_000) : null;
    return { ...p, arrived: t.length, seconds: (t.at(-1) - t[0]) / 1000, achievedPerMinute: perMinute, ofLimit: perMinute === null ? null : perMinute / p.perMinute };
  });
  const all = [...times.values()].flat().sort((a, b) => a - b);
  const total = all.length;
  const wholePerMinute = Math.round(((total - 1) / (all.at(-1) - all[0])) * 60_000);

  const md = [
    `Campaign to ${N} contacts over four mailbox providers (MX records from a DNS server of the bench's own), each with a perMinute limit`,
    `(DELIVERY_LIMITS, 16 connections each); the limits sum to ${SUM}/min, under the bare pool's ${pool.perMinute}/min (${POOL} connections,`,
    `${CONCURRENCY} in flight, unsigned, same sink). One transactional /v1/send a second to a fifth domain meanwhile.`,
    "",
    "| provider | limit /min | arrived | achieved /min (past the first ¼ s of burst) | of its limit |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.provider} | ${r.perMinute} | ${r.arrived} | ${r.achievedPerMinute ?? "–"} | ${r.ofLimit === null ? "–" : r.ofLimit.toFixed(3)} |`),
    `| **all four** | ${SUM} | ${total} | ${wholePerMinute} | ${(wholePerMinute / SUM).toFixed(3)} |`,
    "",
    `Transactional sends during the campaign: ${latency.arrived} of ${latency.sent} arrived; request → sink p50 ${latency.p50} ms, **p99 ${latency.p99} ms**.`,
    `Final stats: ${JSON.stringify(stats)}. ${machine()}.`,
  ].join("\n");
  writeResult("providers", { recipients: N, limits, sumPerMinute: SUM, pool, providers: rows, wholePerMinute, wholeOfSum: wholePerMinute / SUM, transactional: latency, stats }, md);
  console.log(md);
} finally {
  await platform.destroy();
  await dns.stop();
  await sink.stop();
}
process.exit(0);
