// npm run bench -- gateway
// An authenticated request through the gateway and one NATS hop to a service that answers at once,
// against a bare fastify route answering the same body in-process, same run, same concurrency. The
// bare route runs in a process of its own, as the gateway does (bench/baseline.mjs says why).
import { Platform } from "@mailroom/testkit";
import { alternate, formatCpu, load, peakRssMb, profiled, startBaseline, startHelper, writeResult, BENCH_ENV, size } from "./lib.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = size("BENCH_DURATION", 10, 1);
/** Rounds of the three paths, alternated (lib.mjs alternate()). */
const ROUNDS = size("BENCH_ROUNDS", 3, 1);

const platform = new Platform({ services: ["gateway"], env: { ...BENCH_ENV }, serviceEnv: profiled() });
await platform.start();
/** The bench's own processes (responder, bare hop, bare route), stopped however the run ends. */
const helpers = [];
try {
  const project = await platform.createProject("bench");
  const key = JSON.parse(await platform.cli(["keys", "create", "--project", project.id, "--kind", "secret", "--rate-limit", "1000000", "--json"])).key;
  const responder = await startHelper("responder.mjs", [], platform.env);
  helpers.push(responder);
  const hop = await startHelper("hop.mjs", [], { ...platform.env, ...profiled().hop, HOP_PROJECT_ID: project.id });
  helpers.push(hop);
  const hopUrl = `http://127.0.0.1:${hop.line}/contacts`;
  const bare = await startBaseline("json");
  helpers.push(bare);
  const bareUrl = `${bare.url}/contacts`;

  const opts = { connections: CONNECTIONS, duration: DURATION };
  await load({ url: bareUrl, ...opts, duration: 2, title: "warm-up bare" });
  await load({ url: `${platform.url}/contacts`, headers: { authorization: `Bearer ${key}` }, ...opts, duration: 2, title: "warm-up" });
  await load({ url: hopUrl, ...opts, duration: 2, title: "warm-up hop" });
  const gatewayPid = platform.procs.get("gateway")[0].child.pid;
  const [baseline, bareHop, gateway] = await alternate(
    [
      { name: "bare fastify", cpu: { server: bare.pid }, run: (duration) => load({ url: bareUrl, ...opts, duration, title: "bare fastify" }) },
      {
        name: "bare hop",
        cpu: { hop: hop.pid, responder: responder.pid },
        instructions: { hop: hop.pid },
        run: (duration) => load({ url: hopUrl, ...opts, duration, title: "bare hop" }),
      },
      {
        name: "gateway",
        cpu: { gateway: gatewayPid, responder: responder.pid },
        instructions: { gateway: gatewayPid },
        run: (duration) => load({ url: `${platform.url}/contacts`, headers: { authorization: `Bearer ${key}` }, ...opts, duration, title: "gateway" }),
      },
    ],
    { rounds: ROUNDS, duration: DURATION },
  );
  const cpuUsPerRequest = gateway.cpuUsPerRequest;
  const hopCpuUsPerRequest = bareHop.cpuUsPerRequest;
  const kiloInstructions = gateway.kiloInstructions.gateway;
  const hopKiloInstructions = bareHop.kiloInstructions.hop;

  const rss = { gatewayMb: peakRssMb(gatewayPid), responderMb: peakRssMb(responder.pid), bareMb: peakRssMb(bare.pid), benchProcessMb: peakRssMb(process.pid) };

  const ratio = gateway.ratio;
  const addedP50 = gateway.p50Ms - baseline.p50Ms;
  const md = [
    `Authenticated GET /contacts through gateway + NATS hop vs bare fastify, ${CONNECTIONS} connections, ${ROUNDS} alternated rounds of ${DURATION} s per path (the median round shown).`,
    "",
    "| path | req/s | mean ms | p50 ms | p99 ms | non-2xx | req/s per round | ratio per round |",
    "|---|---|---|---|---|---|---|---|",
    ...[
      ["bare fastify (baseline)", baseline],
      ["bare fastify → NATS → service, no key (reference)", bareHop],
      ["gateway → NATS → service", gateway],
    ].map(([name, r]) => `| ${name} | ${r.requestsPerSec} | ${r.meanMs} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.rounds.join(", ")} | ${r.roundRatios.join(", ")} |`),
    "",
    `Throughput ratio **${ratio.toFixed(2)}** (median of the rounds; target ≥ 0.6); added p50 **${addedP50.toFixed(2)} ms** (target ≤ 1 ms; autocannon's p50 is in whole ms, the added mean is ${(gateway.meanMs - baseline.meanMs).toFixed(2)} ms).`,
    `Peak RSS: gateway ${rss.gatewayMb} MB, responder ${rss.responderMb} MB, bare fastify ${rss.bareMb} MB, bench process (load generator) ${rss.benchProcessMb} MB.`,
  ].join("\n");
  const kilo = kiloInstructions === null ? "" : `\nThousands of instructions per request (perf stat): gateway ${kiloInstructions}, bare hop ${hopKiloInstructions}.`;
  writeResult(
    "gateway",
    { baseline, gateway, ratio, addedP50Ms: addedP50, rss, cpuUsPerRequest, bareHop, hopCpuUsPerRequest, kiloInstructions: { gateway: kiloInstructions, hop: hopKiloInstructions } },
    `${md}\nCPU per gateway request (µs): ${formatCpu(cpuUsPerRequest)}.\nCPU per bare hop request (µs): ${formatCpu(hopCpuUsPerRequest)}.\nCPU per bare fastify request (µs): ${formatCpu(baseline.cpuUsPerRequest)}.${kilo}`,
  );
} finally {
  await Promise.all(helpers.map((h) => h.close()));
  await platform.destroy();
}
