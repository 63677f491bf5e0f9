import { randomBytes } from "node:crypto";
import { addZones, apiClient, type ApiClient, Platform } from "@mailroom/testkit";
import { sharedPlatform } from "@mailroom/testkit/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, executionIn, executionsWhen, track, uniqueEmail, uniqueName } from "./helpers.js";
import { type Receiver, startReceiver } from "./receiver.js";

/**
 * The WEBHOOK step against a platform of its own: only the receiver's `127.0.0.1:<port>` is in
 * WEBHOOK_ALLOWED_HOSTS; the canary listener, also on loopback, is not and must never see a request.
 */
let platform: Platform;
let receiver: Receiver;
let canary: Receiver;
let api: ApiClient;

beforeAll(async () => {
  canary = await startReceiver();
  receiver = await startReceiver((r) => {
    if (r.url.startsWith("/fail")) return { status: 500 };
    if (r.url.startsWith("/slow")) return { status: 200, delayMs: 11_000 };
    if (r.url.startsWith("/to-canary")) return { status: 302, headers: { location: `http://127.0.0.1:${canary.port}/hook` } };
    if (r.url.startsWith("/hop")) return { status: 307, headers: { location: "/ok?hopped=1" } };
    return { status: 200 };
  });
  platform = new Platform({
    services: ["gateway", "contacts", "workflows"],
    env: { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, DNS_SERVER: sharedPlatform().dnsAddress },
  });
  await platform.start();
  api = apiClient(platform.url, (await platform.createProject()).secretKey);
});

afterAll(async () => {
  await platform?.destroy();
  await receiver?.close();
  await canary?.close();
});

describe("WEBHOOK step", () => {
  it("posts the default payload with the step's headers", async () => {
    const event = uniqueName("hook");
    const { id } = await buildWorkflow(api, event, [
      { type: "WEBHOOK", config: { url: `${receiver.url}/ok`, headers: { Authorization: "Bearer s3cret", "X-Source": "mailroom" } } },
    ]);
    const email = uniqueEmail();
    await track(api, email, event, { plan: "pro" });
    const done = await executionIn(api, id, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    const got = receiver.received.find((r) => r.body.includes(email))!;
    expect(got.method).toBe("POST");
    expect(got.headers).toMatchObject({ "content-type": "application/json", authorization: "Bearer s3cret", "x-source": "mailroom" });
    expect(JSON.parse(got.body)).toEqual({
      contact: { email, subscribed: true, data: { plan: "pro" } },
      workflow: { id, name: `wf ${event}` },
      execution: { id: done.id, startedAt: done.startedAt },
      event: { plan: "pro" },
    });
  });

  it("renders a custom Liquid body, honours the method and follows a redirect on an allowed host", async () => {
    const event = uniqueName("custom");
    const { id } = await buildWorkflow(api, event, [
      { type: "WEBHOOK", config: { url: `${receiver.url}/hop`, method: "PUT", body: { who: "{{ contact.email }}", plan: "{{ event.plan }}", n: 1 } } },
    ]);
    const email = uniqueEmail();
    await track(api, email, event, { plan: "team" });
    expect((await executionIn(api, id, ["COMPLETED", "FAILED"])).status).toBe("COMPLETED");
    const hops = receiver.received.filter((r) => r.body.includes(email));
    expect(hops.map((r) => [r.method, r.url])).toEqual([
      ["PUT", "/hop"],
      ["PUT", "/ok?hopped=1"],
    ]);
    expect(JSON.parse(hops[1]!.body)).toEqual({ who: email, plan: "team", n: 1 });
  });

  it("fails the execution on a 500 answer and on an answer slower than 10 s", { timeout: 30_000 }, async () => {
    const event = uniqueName("bad");
    const fail = await buildWorkflow(api, event, [{ type: "WEBHOOK", config: { url: `${receiver.url}/fail` } }, { type: "EXIT" }]);
    const slow = await buildWorkflow(api, event, [{ type: "WEBHOOK", config: { url: `${receiver.url}/slow` } }, { type: "EXIT" }]);
    const started = Date.now();
    await track(api, uniqueEmail(), event);
    const failed = await executionIn(api, fail.id, ["FAILED", "EXITED"]);
    expect(failed.status).toBe("FAILED");
    expect(failed.steps.at(-1)).toMatchObject({ status: "FAILED", error: expect.stringContaining("500") });
    const timedOut = await executionIn(api, slow.id, ["FAILED", "EXITED"], 20_000);
    expect(timedOut.status).toBe("FAILED");
    expect(timedOut.steps.at(-1).error).toMatch(/10 s/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(receiver.received.filter((r) => r.url === "/fail")).toHaveLength(1); // no retries
  });

  it("never reaches a private address, in any spelling, by DNS, or by redirect", { timeout: 60_000 }, async () => {
    const c = canary.port;
    const tag = randomBytes(4).toString("hex");
    addZones(sharedPlatform().zonesFile, {
      [`priv-${tag}.mailroom.test`]: { A: ["127.0.0.1"] },
      [`mixed-${tag}.mailroom.test`]: { A: ["93.184.216.34", "127.0.0.1"] },
      [`six-${tag}.mailroom.test`]: { AAAA: ["::1"] },
      [`meta-${tag}.mailroom.test`]: { A: ["169.254.169.254"] },
    });
    const targets = [
      `127.0.0.1:${c}`,
      `127.1:${c}`,
      `0x7f.1:${c}`,
      `0x7f000001:${c}`,
      `2130706433:${c}`,
      `0177.0.0.1:${c}`,
      `[::ffff:127.0.0.1]:${c}`,
      `[::ffff:7f00:1]:${c}`,
      `[64:ff9b::7f00:1]:${c}`,
      `[::1]:${c}`,
      `0.0.0.0:${c}`,
      `[::]:${c}`,
      "169.254.169.254",
      "[::ffff:169.254.169.254]",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "100.64.0.1",
      "[fc00::1]",
      "[fe80::1]",
      "224.0.0.1",
      "240.0.0.1",
      "[ff02::1]",
      `priv-${tag}.mailroom.test:${c}`,
      `mixed-${tag}.mailroom.test:${c}`,
      `six-${tag}.mailroom.test:${c}`,
      `meta-${tag}.mailroom.test`,
    ];
    const event = uniqueName("ssrf");
    const { id } = await buildWorkflow(api, event, [{ type: "WEBHOOK", config: { url: "http://{{ event.target }}/hook" } }]);
    const redirect = await buildWorkflow(api, `${event}-redirect`, [{ type: "WEBHOOK", config: { url: `${receiver.url}/to-canary` } }]);
    for (const target of targets) await track(api, uniqueEmail(), event, { target });
    await track(api, uniqueEmail(), `${event}-redirect`);

    const list = await executionsWhen(api, id, (l) => l.length === targets.length && l.every((e) => !["RUNNING", "WAITING"].includes(e.status)), 30_000);
    for (const e of list) {
      const detail = (await api.get(`/workflows/${id}/executions/${e.id}`)).body;
      expect(detail.status, `${detail.context.event.target}`).toBe("FAILED");
      expect(detail.steps.at(-1).error, `${detail.context.event.target}`).toMatch(/not a public address/);
    }
    const redirected = await executionIn(api, redirect.id, ["FAILED", "COMPLETED"]);
    expect(redirected.status).toBe("FAILED");
    expect(redirected.steps.at(-1).error).toMatch(/not a public address/);
    expect(receiver.received.some((r) => r.url === "/to-canary")).toBe(true);
    expect(canary.received).toEqual([]);
  });
});
