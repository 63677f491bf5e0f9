import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceName } from "@mailroom/contracts";
import { waitFor } from "@mailroom/testkit";
import { NO_ANSWER, deliveryReport, seedContacts, startRig, type Rig } from "../src/index.js";
import { address, scaled } from "./scale.js";
import { expectAcceptedDeliveredOnce, expectRecovered, sendBurst, waitReady } from "./burst.js";

const SENDS = scaled(400);
const RECIPIENTS = scaled(600);
const SERVICES: ServiceName[] = ["gateway", "contacts", "sending", "campaigns"];

/**
 * A deploy: SIGTERM to every service at once while /v1/send traffic and a campaign are under way,
 * then a fresh start. Each process must stop cleanly within SHUTDOWN_TIMEOUT_MS (exit code 0, not
 * the forced exit), finishing or handing back what it holds, so nothing accepted is lost or doubled.
 * While the gateway is down the client gets a refused connection; that is the one extra outcome.
 */
describe(`SIGTERM to every service under load (${SENDS} sends and a ${RECIPIENTS}-recipient campaign)`, () => {
  let rig: Rig;
  const run = randomBytes(3).toString("hex");
  const recipients = Array.from({ length: RECIPIENTS }, (_, i) => address("term", i, run));

  beforeAll(async () => {
    rig = await startRig({
      services: SERVICES,
      serviceEnv: { campaigns: { CAMPAIGNS_PAGE_SIZE: "100", CAMPAIGNS_ENQUEUE_BATCH: "25", CAMPAIGNS_ENQUEUE_CONCURRENCY: "4" } },
    });
    await seedContacts(rig.platform.env.DATABASE_URL!, rig.platform.prefix, rig.project.id, recipients);
  });
  afterAll(() => rig?.destroy());

  it("every process exits cleanly; every accepted send and every campaign recipient gets exactly one email", async () => {
    const created = await rig.api.post("/campaigns", { name: "deploy", subject: "hi", body: "<p>hi</p>", from: rig.from, audienceType: "ALL" });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    const campaignId = created.body.data.id as string;
    expect((await rig.api.post(`/campaigns/${campaignId}/send`)).status).toBe(200);

    const exitCodes: Record<string, number | null> = {};
    const sent = await sendBurst(rig, {
      count: SENDS,
      concurrency: 8,
      faultAt: Math.floor(SENDS / 3),
      tag: "term",
      fault: async () => {
        const children = SERVICES.map((name) => [name, rig.platform.procs.get(name)![0]!.child] as const);
        await Promise.all(SERVICES.map((name) => rig.platform.stopService(name, "SIGTERM")));
        for (const [name, child] of children) exitCodes[name] = child.exitCode;
        await Promise.all(SERVICES.map((name) => rig.platform.startService(name)));
      },
    });
    expect(exitCodes, "clean exits within SHUTDOWN_TIMEOUT_MS").toEqual(Object.fromEntries(SERVICES.map((s) => [s, 0])));

    await waitReady(rig);
    const after = await expectRecovered(rig, "term-after");
    const result = await expectAcceptedDeliveredOnce(rig, [...sent, ...after], { alsoAllowed: [NO_ANSWER], others: recipients });
    console.info(`SIGTERM: ${JSON.stringify(result)}`);

    await waitFor(async () => (await rig.api.get(`/campaigns/${campaignId}`)).body.status === "SENT", {
      timeoutMs: 180_000,
      intervalMs: 250,
      what: "the campaign to be SENT",
    });
    await waitFor(() => deliveryReport(rig.mailbox.messages(), recipients).missing.length === 0, { timeoutMs: 30_000 }).catch(() => undefined);
    const others = sent.map((s) => s.to).concat(after.map((s) => s.to));
    const report = deliveryReport(rig.mailbox.messages(), recipients, others);
    expect(report).toMatchObject({ missing: [], doubled: [], sharedIds: [], unexpected: [], repeatedCopies: 0, delivered: RECIPIENTS });
    const stats = (await rig.api.get(`/campaigns/${campaignId}`)).body.stats;
    expect(stats).toMatchObject({ recipients: RECIPIENTS, sent: RECIPIENTS, failed: 0 });
  }, 400_000);
});
