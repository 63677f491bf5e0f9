import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRig, type Rig } from "../src/index.js";
import { scaled } from "./scale.js";
import { FAST_MS, type Sent, during, expectAcceptedDeliveredOnce, expectRecovered, sendBurst, waitReady } from "./burst.js";

const SENDS = scaled(600);
const OUTAGE_MS = 4000;

/**
 * PostgreSQL (one server for every service's database) stops as after a crash (immediate shutdown,
 * recovery at start) in the middle of a /v1/send burst and comes back after a few seconds.
 */
describe(`PostgreSQL restarted under a ${SENDS}-email load`, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ services: ["gateway", "contacts", "sending"], own: ["postgres"] });
  });
  afterAll(() => rig?.destroy());

  it("503s during the outage, full recovery after, nothing accepted lost", async () => {
    let outageEnd = 0;
    let outageStart = 0;
    let probes: Sent[] = [];
    const sent = await sendBurst(rig, {
      count: SENDS,
      concurrency: 12,
      faultAt: Math.floor(SENDS / 3),
      tag: "pg",
      fault: async () => {
        outageStart = Date.now();
        await rig.infra.postgres!.stop("SIGKILL");
        await new Promise((r) => setTimeout(r, 1000));
        // Requests that start while it is down (the burst's workers may all be waiting on ones it caught).
        probes = await sendBurst(rig, { count: 10, concurrency: 10, tag: "pg-probe" });
        await new Promise((r) => setTimeout(r, OUTAGE_MS - 1000));
        await rig.infra.postgres!.start();
        outageEnd = Date.now();
      },
    });
    // Full recovery: once every service says it is ready again, every request is accepted.
    await waitReady(rig);
    const after = await expectRecovered(rig, "pg-after");
    const result = await expectAcceptedDeliveredOnce(rig, [...sent, ...probes, ...after]);
    const inOutage = during(sent, outageStart, outageEnd);
    console.info(`PostgreSQL restart: ${JSON.stringify({ ...result, inOutage })}`);
    expect(inOutage[503] ?? 0, "the outage was felt").toBeGreaterThan(0);
    // Requests that start while it is down do not wait for it: a 503 at once.
    expect(probes.map((s) => `${s.outcome.status}${s.outcome.ms > FAST_MS ? ` after ${Math.round(s.outcome.ms)} ms` : ""}`)).toEqual(probes.map(() => "503"));
  });
});
