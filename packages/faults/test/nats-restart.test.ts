import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRig, type Rig } from "../src/index.js";
import { scaled } from "./scale.js";
import { FAST_MS, type Sent, during, expectAcceptedDeliveredOnce, expectRecovered, sendBurst, waitReady } from "./burst.js";

const SENDS = scaled(600);
const OUTAGE_MS = 4000;

/**
 * NATS is killed (SIGKILL) in the middle of a /v1/send burst and restarted on the same store after a
 * few seconds. The services reconnect by themselves; the streams and durable consumers survive in
 * the store. Requests in the outage get 503 within the bound; every 200 is delivered exactly once.
 */
describe(`NATS restarted during a ${SENDS}-email transactional burst`, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ services: ["gateway", "contacts", "sending"], own: ["nats"] });
  });
  afterAll(() => rig?.destroy());

  it("every accepted /v1/send is delivered once; refusals are 503 within the bound", async () => {
    let outageStart = 0;
    let probes: Sent[] = [];
    let outageEnd = 0;
    const sent = await sendBurst(rig, {
      count: SENDS,
      concurrency: 12,
      faultAt: Math.floor(SENDS / 3),
      tag: "nats",
      fault: async () => {
        outageStart = Date.now();
        await rig.infra.nats!.stop("SIGKILL");
        await new Promise((r) => setTimeout(r, 1000));
        // Requests that start while it is down (the burst's workers may all be waiting on ones it caught).
        probes = await sendBurst(rig, { count: 10, concurrency: 10, tag: "nats-probe" });
        await new Promise((r) => setTimeout(r, OUTAGE_MS - 1000));
        await rig.infra.nats!.start();
        outageEnd = Date.now();
      },
    });
    // Full recovery: once every service says it is ready again, every request is accepted.
    await waitReady(rig);
    const after = await expectRecovered(rig, "nats-after");
    const result = await expectAcceptedDeliveredOnce(rig, [...sent, ...probes, ...after]);
    const inOutage = during(sent, outageStart, outageEnd);
    console.info(`NATS restart: ${JSON.stringify({ ...result, inOutage })}`);
    expect(inOutage[503] ?? 0, "the outage was felt").toBeGreaterThan(0);
    // Requests that start while it is down do not wait for it: a 503 at once.
    expect(probes.map((s) => `${s.outcome.status}${s.outcome.ms > FAST_MS ? ` after ${Math.round(s.outcome.ms)} ms` : ""}`)).toEqual(probes.map(() => "503"));
  });
});
