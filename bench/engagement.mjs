// npm run bench -- engagement
// 1. Click-redirect throughput and p99: GET /t/c/{token} through the gateway (one NATS hop, one
//    UPDATE of the email record, 302 to the stored link), against a bare fastify route answering the
//    same 302 in-process (in a process of its own, as the gateway is: bench/baseline.mjs says why);
//    same run, same concurrency. Clicks cycle over many emails, as real ones do.
// 2. Inbound DSN processing rate: success DSNs into the inbound SMTP port with a pooled nodemailer
//    client; each 250 means the report was applied and durable.
import nodemailer from "nodemailer";
import { connect } from "@nats-io/transport-node";
import { startMailbox } from "@mailroom/devmailbox";
import { Platform, apiClient, freePort, waitFor } from "@mailroom/testkit";
import { alternate, formatCpu, load, peakRssMb, startBaseline, writeResult, BENCH_ENV, profiled, size } from "./lib.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = size("BENCH_DURATION", 10, 1);
/** Rounds of the two paths, alternated (lib.mjs alternate()). */
const ROUNDS = size("BENCH_ROUNDS", 3, 1);
const EMAILS = size("BENCH_EMAILS", 300, 20);
const DSNS = size("BENCH_DSNS", 2000, 50);
const RPD = "bounces.bench.test";

const mailbox = await startMailbox({ smtpPort: 0, httpPort: 0, maxMessages: EMAILS + 10 });
const inboundPort = await freePort();
const platform = new Platform({
  services: ["gateway", "contacts", "sending"],
  env: { ...BENCH_ENV, SMTP_URL: mailbox.smtpUrl, RETURN_PATH_DOMAIN: RPD, INBOUND_SMTP_PORT: String(inboundPort), INBOUND_SMTP_HOST: "127.0.0.1" },
  serviceEnv: profiled(),
});
let bare;
await platform.start();
try {
  const project = await platform.createProject("bench");
  const key = JSON.parse(await platform.cli(["keys", "create", "--project", project.id, "--kind", "secret", "--rate-limit", "1000000", "--json"])).key;
  const api = apiClient(platform.url, key);
  const nc = await connect({ servers: platform.env.NATS_URL });
  await nc.request(`${platform.prefix}.rpc.sending.domains.forceVerify`, JSON.stringify({ projectId: project.id, domain: "bench.test" }), { timeout: 10_000 });
  await nc.close();

  // EMAILS tracked emails, 10 recipients per /v1/send call (each recipient is upserted and rendered in turn)
  const ids = [];
  for (let i = 0; i < EMAILS; i += 10) {
    const to = Array.from({ length: Math.min(10, EMAILS - i) }, (_, j) => `r${i + j}@example.com`);
    const res = await api.post("/v1/send", { to, from: "news@bench.test", subject: "Bench", body: `<a href="https://shop.example/p?id=1">shop</a>` });
    if (res.status !== 200) throw new Error(`send: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(...res.body.data.emails.map((e) => e.email));
  }
  const messages = await waitFor(() => (mailbox.messages().length >= EMAILS ? mailbox.messages() : null), { timeoutMs: 120_000, what: "every email relayed" });
  // DSNs go to the signed envelope sender each email was relayed with
  const verpOf = new Map(messages.map((m) => [m.envelope.mailFrom.slice("bounces+".length, "bounces+".length + 36), m.envelope.mailFrom]));
  const paths = messages.map((m) => new URL(/href="([^"]+\/t\/c\/[^"]+)"/.exec(m.html)[1]).pathname);
  // Each connection walks this list in turn. A fixed list lets autocannon build each request once;
  // a setupRequest callback rebuilt every one and cost the load generator 33 µs a click against
  // 19 µs for the baseline's single URL, CPU taken from the cores the services share.
  const clickRequests = paths.map((path) => ({ method: "GET", path }));

  bare = await startBaseline("redirect");
  const bareUrl = bare.url;

  const opts = { connections: CONNECTIONS, duration: DURATION };
  await load({ url: `${bareUrl}/t/c/x`, ...opts, duration: 2, title: "warm-up bare" });
  await load({ url: platform.url, requests: clickRequests, ...opts, duration: 2, title: "warm-up" });
  const procs = Object.fromEntries(["gateway", "sending", "contacts"].map((name) => [name, platform.procs.get(name)[0].child.pid]));
  const [baseline, gateway] = await alternate(
    [
      { name: "bare fastify 302", cpu: { server: bare.pid }, run: (duration) => load({ url: `${bareUrl}/t/c/x`, ...opts, duration, title: "bare fastify 302" }) },
      { name: "click through the gateway", cpu: procs, run: (duration) => load({ url: platform.url, requests: clickRequests, ...opts, duration, title: "click through the gateway" }) },
    ],
    { rounds: ROUNDS, duration: DURATION },
  );
  const cpuUsPerClick = gateway.cpuUsPerRequest;
  const bareMb = peakRssMb(bare.pid);
  await bare.close();

  // DSN processing rate
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: inboundPort, ignoreTLS: true, pool: true, maxConnections: 4, maxMessages: Infinity });
  const dsn = (emailId, n) =>
    [
      `From: MAILER-DAEMON@mta.example`, `To: ${verpOf.get(emailId)}`, `Subject: DSN`, `Message-ID: <bench-${n}@mta.example>`,
      `MIME-Version: 1.0`, `Content-Type: multipart/report; report-type=delivery-status; boundary="b"`, ``,
      `--b`, `Content-Type: message/delivery-status`, ``, `Reporting-MTA: dns; mta.example`, `Original-Envelope-Id: ${emailId}`, ``,
      `Final-Recipient: rfc822; x@example.com`, `Action: delivered`, `Status: 2.0.0`, ``, `--b--`, ``,
    ].join("\r\n");
  const started = performance.now();
  let failed = 0;
  let sentDsns = 0;
  const workers = Array.from({ length: 8 }, async () => {
    while (sentDsns < DSNS) {
      const n = sentDsns++;
      const emailId = ids[n % ids.length];
      await transport.sendMail({ envelope: { from: "", to: [verpOf.get(emailId)] }, raw: dsn(emailId, n) }).catch(() => failed++);
    }
  });
  await Promise.all(workers);
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  const dsnRate = Math.round(DSNS / seconds);

  const rss = { gatewayMb: peakRssMb(platform.procs.get("gateway")[0].child.pid), sendingMb: peakRssMb(platform.procs.get("sending")[0].child.pid), bareMb };
  const ratio = gateway.ratio;
  const md = [
    `Click redirects (GET /t/c/{token} → 302) over ${paths.length} emails through gateway + NATS + sending (token check, cached links, counts written behind in batches) vs a bare fastify 302, ${CONNECTIONS} connections, ${ROUNDS} alternated rounds of ${DURATION} s per path (the median round shown).`,
    "",
    "| path | req/s | mean ms | p50 ms | p99 ms | errors | req/s per round | ratio per round |",
    "|---|---|---|---|---|---|---|---|",
    `| bare fastify 302 (baseline) | ${baseline.requestsPerSec} | ${baseline.meanMs} | ${baseline.p50Ms} | ${baseline.p99Ms} | ${baseline.errors} | ${baseline.rounds.join(", ")} | ${baseline.roundRatios.join(", ")} |`,
    `| gateway → NATS → sending | ${gateway.requestsPerSec} | ${gateway.meanMs} | ${gateway.p50Ms} | ${gateway.p99Ms} | ${gateway.errors} | ${gateway.rounds.join(", ")} | ${gateway.roundRatios.join(", ")} |`,
    "",
    `Throughput ratio **${ratio.toFixed(2)}** (median of the rounds; target ≥ 0.5). CPU per click (µs): ${formatCpu(cpuUsPerClick)}; per bare 302: ${formatCpu(baseline.cpuUsPerRequest)}.`,
    "",
    `Inbound DSNs: **${dsnRate} messages/s** (${DSNS} success DSNs over 4 pooled SMTP connections, ${failed} refused), each answered 250 once applied.`,
    `Peak RSS: gateway ${rss.gatewayMb} MB, sending ${rss.sendingMb} MB, bare fastify ${rss.bareMb} MB.`,
  ].join("\n");
  writeResult("engagement", { baseline, gateway, ratio, cpuUsPerClick, dsn: { count: DSNS, seconds, rate: dsnRate, failed }, rss }, md);
} finally {
  await bare?.close();
  await platform.destroy();
  await mailbox.stop();
}
