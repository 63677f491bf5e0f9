// npm run bench -- verify
// Warm-cache /v1/verify throughput through the gateway against the gateway's no-op route (the same
// gateway forwarding to a service that answers at once), same run, in alternated rounds
// (BENCH_ROUNDS, 3); cold-cache p50/p99 against a local DNS server.
import { Platform, apiClient, startDnsServer } from "@mailroom/testkit";
import { alternate, formatCpu, load, peakRssMb, startHelper, writeResult, BENCH_ENV, profiled, size } from "./lib.mjs";

const DURATION = size("BENCH_DURATION", 10, 1);
const ROUNDS = size("BENCH_ROUNDS", 3, 1);
const CONNECTIONS = 50;
const COLD = size("BENCH_COLD", 200, 10);

const dns = await startDnsServer();
const zone = { NS: ["ns1.bench.example"], A: ["192.0.2.10"], MX: [{ exchange: "mx.bench.example", priority: 10 }] };
dns.set("bench.example", zone);
for (let i = 0; i < COLD; i++) dns.set(`c${i}.cold.example`, zone);

const platform = new Platform({ services: ["gateway", "verify"], env: { ...BENCH_ENV, DNS_SERVER: dns.address }, serviceEnv: profiled() });
await platform.start();
try {
  const project = await platform.createProject("bench");
  const key = JSON.parse(await platform.cli(["keys", "create", "--project", project.id, "--kind", "secret", "--rate-limit", "1000000", "--json"])).key;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const api = apiClient(platform.url, key);
  const first = await api.post("/v1/verify", { email: "someone@bench.example" });
  if (first.status !== 200) throw new Error(`verify answered ${first.status}: ${JSON.stringify(first.body)}`);

  const responder = await startHelper("responder.mjs", [], platform.env);

  const verifyOpts = { url: `${platform.url}/v1/verify`, method: "POST", headers, body: JSON.stringify({ email: "someone@bench.example" }), connections: CONNECTIONS };
  const noopOpts = { url: `${platform.url}/contacts`, headers, connections: CONNECTIONS };
  await load({ ...verifyOpts, duration: 2, title: "warm-up" });
  await load({ ...noopOpts, duration: 2, title: "warm-up" });
  const gatewayPid = platform.procs.get("gateway")[0].child.pid;
  const verifyPid = platform.procs.get("verify")[0].child.pid;
  const [noop, warm] = await alternate(
    [
      { name: "noop", cpu: { gateway: gatewayPid, responder: responder.pid }, run: (duration) => load({ ...noopOpts, duration, title: "noop" }) },
      { name: "verify", cpu: { gateway: gatewayPid, verify: verifyPid }, run: (duration) => load({ ...verifyOpts, duration, title: "verify" }) },
    ],
    { rounds: ROUNDS, duration: DURATION },
  );
  await responder.close();

  const queriesBefore = dns.queries.length;
  const cold = [];
  for (let i = 0; i < COLD; i++) {
    const t = performance.now();
    const res = await api.post("/v1/verify", { email: `user@c${i}.cold.example` });
    cold.push(performance.now() - t);
    if (res.status !== 200 || !res.body.data.valid) throw new Error(`cold verify failed: ${JSON.stringify(res.body)}`);
  }
  cold.sort((a, b) => a - b);
  const pct = (p) => +cold[Math.min(cold.length - 1, Math.floor((p / 100) * cold.length))].toFixed(1);
  const dnsPerCold = (dns.queries.length - queriesBefore) / COLD;
  const rss = { gatewayMb: peakRssMb(gatewayPid), verifyMb: peakRssMb(verifyPid) };
  const ratio = warm.ratio;
  const md = [
    `Warm cache, ${CONNECTIONS} connections, through the same gateway, ${ROUNDS} alternated rounds of ${DURATION} s per path (the median round shown):`,
    "",
    "| path | req/s | p50 ms | p99 ms | non-2xx | rounds req/s | round ratios | CPU µs per request |",
    "|---|---|---|---|---|---|---|---|",
    ...[
      ["gateway no-op route (a service answering at once; baseline)", noop],
      ["POST /v1/verify, cached domain", warm],
    ].map(([name, r]) => `| ${name} | ${r.requestsPerSec} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.rounds.join(", ")} | ${r.roundRatios.join(", ")} | ${formatCpu(r.cpuUsPerRequest)} |`),
    "",
    `Throughput ratio **${ratio.toFixed(2)}** (median of the rounds' ratios; target ≥ 0.7).`,
    "",
    `Cold cache: ${COLD} distinct domains, sequential, local DNS server: p50 **${pct(50)} ms**, p99 **${pct(99)} ms**, ${dnsPerCold.toFixed(1)} DNS queries per verification.`,
    `Peak RSS: gateway ${rss.gatewayMb} MB, verify ${rss.verifyMb} MB.`,
  ].join("\n");
  writeResult("verify", { noop, warm, ratio, cold: { p50Ms: pct(50), p99Ms: pct(99), dnsPerCold }, rss }, md);
} finally {
  await platform.destroy();
  await dns.stop();
}
