import { randomBytes } from "node:crypto";
import { addZones, apiClient, type ApiClient, Platform, type Receiver, startReceiver } from "@mailroom/testkit";
import { sharedPlatform } from "@mailroom/testkit/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, executionIn, executionsWhen, expectError, track, uniqueEmail, uniqueName } from "./helpers.js";

/**
 * The WEBHOOK step against a platform of its own: only the receiver's `127.0.0.1:<port>` is in
 * WEBHOOK_ALLOWED_HOSTS; the canary listener, also on loopback, is not and must never see a request.
 */
let platform: Platform;
let receiver: Receiver;
let canary: Receiver;
/** Another allowed origin (another port), for redirects across origins. */
let other: Receiver;
let api: ApiClient;

beforeAll(async () => {
  canary = await startReceiver();
  other = await startReceiver();
  receiver = await startReceiver((r) => {
    if (r.url.startsWith("/fail")) return { status: 500 };
    if (r.url.startsWith("/slow")) return { status: 200, delayMs: 11_000 };
    if (r.url.startsWith("/to-canary")) return { status: 302, headers: { location: `http://127.0.0.1:${canary.port}/hook` } };
    if (r.url.startsWith("/hop")) return { status: 307, headers: { location: "/ok?hopped=1" } };
    if (r.url.startsWith("/to-other")) return { status: 307, headers: { location: `${other.url}/landed` } };
    return { status: 200 };
  });
  platform = new Platform({
    services: ["gateway", "contacts", "workflows"],
    env: { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port},127.0.0.1:${other.port}`, DNS_SERVER: sharedPlatform().dnsAddress },
  });
  await platform.start();
  api = apiClient(platform.url, (await platform.createProject()).secretKey);
});

afterAll(async () => {
  await platform?.destroy();
  await receiver?.close();
  await canary?.close();
  await other?.close();
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
      const target = String(detail.context.event.target);
      const error = String(detail.steps.at(-1).error);
      expect(detail.status, target).toBe("FAILED");
      expect(error, target).toMatch(/not a public address|resolves to an address that is not public/);
      // a name's error never tells what it resolved to (no DNS oracle)
      if (target.includes("mailroom.test")) expect(error, target).not.toMatch(/127\.0\.0\.1|::1|169\.254|93\.184|loopback|linkLocal/);
    }
    const redirected = await executionIn(api, redirect.id, ["FAILED", "COMPLETED"]);
    expect(redirected.status).toBe("FAILED");
    expect(redirected.steps.at(-1).error).toMatch(/not a public address/);
    expect(receiver.received.some((r) => r.url === "/to-canary")).toBe(true);
    expect(canary.received).toEqual([]);
  });

  it("refuses on save a host that resolves to a private address without naming the address", async () => {
    const tag = randomBytes(4).toString("hex");
    addZones(sharedPlatform().zonesFile, { [`inside-${tag}.mailroom.test`]: { A: ["10.9.8.7"] } });
    const { id } = await buildWorkflow(api, uniqueName("save"), [], { enable: false });
    const res = await api.post(`/workflows/${id}/steps`, { type: "WEBHOOK", config: { url: `http://inside-${tag}.mailroom.test/hook` } });
    expectError(res, 400, "VALIDATION_ERROR");
    const said = JSON.stringify(res.body);
    expect(said).toMatch(/resolves to an address that is not public/);
    expect(said).not.toMatch(/10\.9\.8\.7|private/);
    expect((await api.get(`/workflows/${id}`)).body.steps).toHaveLength(1);
  });

  it("refuses on save headers that frame the message, name the host or manage the connection", async () => {
    const { id } = await buildWorkflow(api, uniqueName("hdr"), [], { enable: false });
    for (const name of ["Host", "Content-Length", "Transfer-Encoding", "Connection", "keep-alive", "Upgrade"]) {
      const res = await api.post(`/workflows/${id}/steps`, { type: "WEBHOOK", config: { url: `${receiver.url}/ok`, headers: { [name]: "x", "X-Fine": "1" } } });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details, name).toEqual([{ path: `config.headers.${name}`, message: expect.stringContaining("cannot be configured") }]);
    }
    expect((await api.get(`/workflows/${id}`)).body.steps).toHaveLength(1);
  });

  it("does not carry the step's credentials along a redirect to another origin", async () => {
    const event = uniqueName("xorigin");
    const { id } = await buildWorkflow(api, event, [
      { type: "WEBHOOK", config: { url: `${receiver.url}/to-other`, headers: { Authorization: "Bearer s3cret", Cookie: "sid=1", "X-Api-Key": "k" } } },
    ]);
    const email = uniqueEmail();
    await track(api, email, event);
    expect((await executionIn(api, id, ["COMPLETED", "FAILED"])).status).toBe("COMPLETED");
    const first = receiver.received.find((r) => r.url === "/to-other" && r.body.includes(email))!;
    expect(first.headers.authorization).toBe("Bearer s3cret");
    const landed = other.received.find((r) => r.body.includes(email))!;
    expect(landed.url).toBe("/landed");
    expect(landed.headers["content-type"]).toBe("application/json");
    for (const h of ["authorization", "cookie", "x-api-key"]) expect(landed.headers[h], h).toBeUndefined();
  });
});
