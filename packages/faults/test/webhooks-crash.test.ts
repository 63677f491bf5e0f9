import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { call, pool, startRig, type Rig } from "../src/index.js";
import { scaled } from "./scale.js";

const CONTACTS = scaled(400);

interface Got {
  id: string;
  body: string;
}

/**
 * kill -9 of the workflows service (which delivers webhooks) in the middle of a burst of
 * contact.unsubscribed events: after its restart every event reaches the endpoint, and every repeat
 * (a call under way at the kill, sent again when its claim ran out) carries the same webhook-id and
 * the same body.
 */
describe(`kill -9 of the webhook deliverer during ${CONTACTS} events`, () => {
  let rig: Rig;
  let receiver: Server;
  const got: Got[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        got.push({ id: String(req.headers["webhook-id"]), body });
        // slow enough that the burst is still being delivered when the kill comes
        setTimeout(() => res.end("ok"), 20);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as AddressInfo).port;
    rig = await startRig({
      services: ["gateway", "contacts", "workflows"],
      // the events the killed replica had taken but not acked come back 3 s after the kill, not 30 s
      env: { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${port}`, WEBHOOKS_LEASE_MS: "11000", WEBHOOKS_PER_ENDPOINT: "4", CONSUMER_ACK_WAIT_MS: "3000" },
    });
  });
  afterAll(async () => {
    await rig?.destroy();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it("delivers every event at least once, a repeat with the same webhook-id", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const hook = await rig.api.post("/webhooks", { url: `http://127.0.0.1:${port}/events`, events: ["contact.unsubscribed"] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const run = randomBytes(3).toString("hex");
    const email = (i: number) => `hook-${run}-${i}@example.com`;
    const track = (i: number, subscribed: boolean) =>
      call(`${rig.platform.url}/v1/track`, { key: rig.project.secretKey, body: { email: email(i), event: "seen", subscribed } });
    await pool(CONTACTS, 8, async (i) => {
      expect((await track(i, true)).status).toBe(200);
    });
    const burst = pool(CONTACTS, 8, async (i) => {
      expect((await track(i, false)).status).toBe(200);
    });
    await waitFor(() => got.length >= CONTACTS / 5, { timeoutMs: 60_000, intervalMs: 50, what: "a fifth of the events delivered" });
    await rig.platform.stopService("workflows", "SIGKILL");
    const before = got.length;
    await burst;
    await rig.platform.startService("workflows");

    const emails = () => new Set(got.map((g) => JSON.parse(g.body).data.email as string));
    await waitFor(() => emails().size === CONTACTS, { timeoutMs: 120_000, intervalMs: 500, what: `every contact's event (${CONTACTS})` });
    expect(before).toBeLessThan(CONTACTS);
    const byId = new Map<string, Set<string>>();
    for (const g of got) byId.set(g.id, (byId.get(g.id) ?? new Set()).add(g.body));
    expect(byId.size, "one webhook-id per event").toBe(CONTACTS);
    for (const bodies of byId.values()) expect(bodies.size, "a repeat is the same body").toBe(1);
    for (const g of got) expect(JSON.parse(g.body).type).toBe("contact.unsubscribed");
  }, 300_000);
});
