import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { wireNames } from "@mailroom/contracts";
import { Platform, apiClient } from "@mailroom/testkit";
import { campaignBody, createContacts, uniqueAddress, waitForStatus } from "./helpers.js";

/**
 * A sending service that is there but refuses a campaign's recipients on every attempt, for a reason
 * no retry changes and that is not "not running" (here INTERNAL_ERROR, as a bug would answer): the
 * fan-out gives those recipients up after CAMPAIGNS_ENQUEUE_ATTEMPTS rounds and the campaign ends,
 * instead of retrying for ever. A stand-in answers the sending operations the campaign uses, on the
 * real bus of a platform of its own (RPC_COALESCE off: one message per request).
 */
describe("a fan-out that sending refuses on every attempt", () => {
  const platform = new Platform({
    services: ["gateway", "contacts", "campaigns"],
    env: { RPC_COALESCE: "false" },
    serviceEnv: { campaigns: { CAMPAIGNS_ENQUEUE_ATTEMPTS: "2" } },
  });
  let nc: NatsConnection;
  let enqueueCalls = 0;

  beforeAll(async () => {
    await platform.start();
    nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
    const names = wireNames(platform.prefix);
    const answer = (operation: string, reply: () => unknown) =>
      nc.subscribe(names.rpc(operation), {
        callback: (_err, msg) => {
          msg.respond(JSON.stringify(reply()));
        },
      });
    answer("sending.domainVerified", () => ({ ok: true, result: { verified: true } }));
    answer("sending.enqueueBatch", () => {
      enqueueCalls++;
      return { ok: false, error: { error: "INTERNAL_ERROR", message: "Internal error" } };
    });
    await nc.flush();
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await platform.destroy();
  });

  it("counts the recipients failed after the configured attempts and ends the campaign", async () => {
    const project = await platform.createProject("attempts");
    const api = apiClient(platform.url, project.secretKey);
    await createContacts(api, [uniqueAddress("a"), uniqueAddress("b"), uniqueAddress("c")].map((email) => ({ email, subscribed: true })));
    const created = await api.post("/campaigns", campaignBody("news@attempts.mailroom.test"));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await api.post(`/campaigns/${created.body.data.id}/send`, {})).status).toBe(200);
    const done = await waitForStatus(api, created.body.data.id, "SENT", 30_000);
    expect(done.stats).toMatchObject({ recipients: 3, failed: 3, sent: 0 });
    expect(enqueueCalls).toBe(2);
  });
});
