import { addZones, apiClient, type ApiClient, DATABASE_URL, Platform, waitFor, type Received, type Receiver, startReceiver } from "@mailroom/testkit";
import { sharedPlatform } from "@mailroom/testkit/shared";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, serviceDatabaseUrl } from "@mailroom/kit";
import { buildWorkflow, expectError, track, uniqueEmail, uniqueName, verifiedTemplate } from "./helpers.js";

/**
 * Outbound webhooks (decisions.md §16) through the real stack: /v1/send makes email events, the
 * workflows service turns them into signed deliveries, a receiver on loopback checks each signature
 * with the `standardwebhooks` package. The retry schedule runs 10,000 times faster (5 min is 30 ms).
 */
let platform: Platform;
let receiver: Receiver;
let hanging: Receiver;
/** How long the hanging endpoint holds each call: past the 10 s webhook timeout, until a test is done with it. */
let hangMs = 11_000;
let api: ApiClient;
let from: string;
/** Answers per path so far, for endpoints that fail a few times first. */
const calls = new Map<string, number>();

beforeAll(async () => {
  receiver = await startReceiver((r) => {
    const n = (calls.get(r.url) ?? 0) + 1;
    calls.set(r.url, n);
    if (r.url.startsWith("/flaky")) return { status: n <= 3 ? 500 : 200 };
    if (r.url.startsWith("/gone")) return { status: 410 };
    if (r.url.startsWith("/down")) return { status: 503 };
    return { status: 200 };
  });
  hanging = await startReceiver(() => ({ status: 200, delayMs: hangMs }));
  const shared = sharedPlatform();
  platform = new Platform({
    services: ["gateway", "contacts", "sending", "workflows"],
    env: {
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port},127.0.0.1:${hanging.port}`,
      WEBHOOKS_TIME_SCALE: "10000",
      WEBHOOKS_PER_ENDPOINT: "2",
      DNS_SERVER: shared.dnsAddress,
      SMTP_URL: shared.smtpUrl,
    },
  });
  await platform.start();
  api = apiClient(platform.url, (await platform.createProject()).secretKey);
  const domain = `${uniqueName("hooks")}.mailroom.test`;
  const created = await api.post("/domains", { domain });
  const dkim = created.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
  addZones(shared.zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
  expect((await api.post(`/domains/${created.body.id}/verify`)).body.status).toBe("VERIFIED");
  from = `app@${domain}`;
});

afterAll(async () => {
  // first: a call still held there would hold the workflows service's stop for its 10 s timeout
  await hanging?.close();
  await platform?.destroy();
  await receiver?.close();
});

async function endpoint(path: string, events: string[] = ["email.sent"], on: Receiver = receiver) {
  const res = await api.post("/webhooks", { url: `${on.url}${path}`, events, description: path });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string };
}

/** One email through /v1/send; its email id as /v1/send answered it. */
async function send(to = uniqueEmail()): Promise<{ emailId: string; contactId: string; to: string }> {
  const res = await api.post("/v1/send", { to, from, subject: "Hooked", body: "<p>hi</p>" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [e] = res.body.data.emails;
  return { emailId: e.email, contactId: e.contact.id, to };
}

const at = (path: string, on: Receiver = receiver) => on.received.filter((r) => r.url === path);
const arrived = (path: string, n: number, on: Receiver = receiver) =>
  waitFor(() => (at(path, on).length >= n ? at(path, on) : null), { timeoutMs: 20_000, what: `${n} calls to ${path}` });
/** The verification the README shows a receiver, with the `standardwebhooks` package. */
const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };

describe("webhook endpoints", () => {
  it("gives the secret once, on creation; lists and reads without it", async () => {
    const created = await endpoint("/crud", ["email.*", "segment.*.entry"]);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await api.get(`/webhooks/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.id, url: `${receiver.url}/crud`, events: ["email.*", "segment.*.entry"], enabled: true, disabledReason: null });
    expect(got.body.secret).toBeUndefined();
    const list = await api.get("/webhooks");
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(created.id);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    const patched = await api.patch(`/webhooks/${created.id}`, { enabled: false, events: ["contact.unsubscribed"] });
    expect(patched.body).toMatchObject({ enabled: false, events: ["contact.unsubscribed"] });
    expect((await api.delete(`/webhooks/${created.id}`)).status).toBe(204);
    expectError(await api.get(`/webhooks/${created.id}`), 404, "NOT_FOUND");
  });

  it("refuses private addresses, unknown event patterns and another project's endpoints", async () => {
    for (const url of ["http://10.0.0.7/hook", "http://169.254.169.254/latest", "http://[::1]:9/x", "ftp://example.com/x"]) {
      const res = await api.post("/webhooks", { url, events: ["email.*"] });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details[0].path).toBe("url");
    }
    const typo = await api.post("/webhooks", { url: `${receiver.url}/x`, events: ["emial.sent"] });
    expectError(typo, 400, "VALIDATION_ERROR");
    expectError(await api.post("/webhooks", { url: `${receiver.url}/x`, events: [] }), 400, "VALIDATION_ERROR");
    const mine = await endpoint("/mine");
    const other = apiClient(platform.url, (await platform.createProject("other")).secretKey);
    expectError(await other.get(`/webhooks/${mine.id}`), 404, "NOT_FOUND");
    expectError(await other.post(`/webhooks/${mine.id}/rotate-secret`), 404, "NOT_FOUND");
    expectError(await other.get(`/webhooks/${mine.id}/deliveries`), 404, "NOT_FOUND");
    expectError(await api.get("/webhooks/not-an-id"), 404, "NOT_FOUND");
  });
});

describe("webhook deliveries", () => {
  it("signs every event as Standard Webhooks does, with the ids a client matches on", async () => {
    const hook = await endpoint("/signed", ["email.*"]);
    const { emailId, contactId, to } = await send();
    const [got] = await arrived("/signed", 1);
    expect(got!.headers["webhook-id"]).toBeTruthy();
    expect(Math.abs(Number(got!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    const body = verify(hook.secret, got!);
    expect(body.type).toBe("email.sent");
    expect(body.data).toMatchObject({ emailId, contactId, email: to, campaignId: null, sourceType: "TRANSACTIONAL" });
    // a tampered body or another secret does not verify
    expect(() => verify(hook.secret, { ...got!, body: got!.body.replace("Hooked", "Hacked") })).toThrow();
    expect(() => verify("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", got!)).toThrow();
  });

  it("retries a failing endpoint with the same webhook-id until it answers 2xx", async () => {
    const hook = await endpoint("/flaky");
    await send();
    const got = await arrived("/flaky", 4);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of got) expect(verify(hook.secret, r).type).toBe("email.sent");
    const log = await waitFor(async () => {
      const res = await api.get(`/webhooks/${hook.id}/deliveries`);
      return res.body.data[0]?.status === "SUCCEEDED" ? res.body.data : null;
    }, { what: "the delivery recorded as succeeded" });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ eventType: "email.sent", attempts: 4, responseCode: 200, responseBody: "ok", error: null, nextAttemptAt: null });
    expect(log[0].eventId).toBe(got[0]!.headers["webhook-id"]);
  });

  it("signs with both secrets for a day after a rotation", async () => {
    const hook = await endpoint("/rotated");
    const rotated = await api.post(`/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await send();
    const [got] = await arrived("/rotated", 1);
    expect(String(got!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(hook.secret, got!).type).toBe("email.sent");
    expect(verify(rotated.body.secret, got!).type).toBe("email.sent");
  });

  it("sends a test event; a 410 disables the endpoint with a reason", async () => {
    const hook = await endpoint("/gone");
    const test = await api.post(`/webhooks/${hook.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ eventType: "webhook.test", status: "PENDING", payload: { type: "webhook.test" } });
    const [got] = await arrived("/gone", 1);
    expect(verify(hook.secret, got!).type).toBe("webhook.test");
    const disabled = await waitFor(async () => {
      const res = await api.get(`/webhooks/${hook.id}`);
      return res.body.enabled === false ? res.body : null;
    }, { what: "the endpoint disabled" });
    expect(disabled.disabledReason).toMatch(/410/);
    // nothing more goes to a disabled endpoint: a later test event stays pending
    const again = await api.post(`/webhooks/${hook.id}/test`);
    const other = await endpoint("/after-gone", ["email.sent"]);
    await api.post(`/webhooks/${other.id}/test`);
    await arrived("/after-gone", 1);
    expect(at("/gone")).toHaveLength(1);
    expect((await api.get(`/webhooks/${hook.id}/deliveries?status=PENDING`)).body.data.map((d: { id: string }) => d.id)).toEqual([again.body.id]);
  });

  it("gives up after the schedule, keeps the failure in the log, and retries it by hand", async () => {
    const hook = await endpoint("/down");
    await api.post(`/webhooks/${hook.id}/test`);
    // 8 attempts: the first and 7 retries (5 s … 10 h, here 0.5 ms … 3.6 s)
    const failed = await waitFor(async () => {
      const res = await api.get(`/webhooks/${hook.id}/deliveries?status=FAILED`);
      return res.body.data[0] ?? null;
    }, { timeoutMs: 30_000, what: "the delivery failed for good" });
    expect(failed).toMatchObject({ attempts: 8, responseCode: 503, error: "answered 503", nextAttemptAt: null });
    expect(at("/down")).toHaveLength(8);
    const retried = await api.post(`/webhooks/${hook.id}/deliveries/${failed.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe("PENDING");
    await arrived("/down", 9);
    expectError(await api.post(`/webhooks/${hook.id}/deliveries/${hook.id}/retry`), 404, "NOT_FOUND");
  });

  it("an endpoint that hangs holds only its own slots: another endpoint's deliveries go on", async () => {
    await endpoint("/hang", ["email.sent"], hanging);
    await endpoint("/healthy", ["email.sent"]);
    const started = Date.now();
    for (let i = 0; i < 5; i++) await send();
    await arrived("/healthy", 5);
    // every healthy delivery arrived while the hanging endpoint's first calls were still unanswered
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(at("/hang", hanging).length).toBeGreaterThan(0);
    expect(at("/hang", hanging).length).toBeLessThanOrEqual(2);
  });

  it("names the workflow whose SEND_EMAIL step sent an email", async () => {
    const hook = await endpoint("/by-workflow", ["email.sent"]);
    const template = await verifiedTemplate(api, sharedPlatform().zonesFile);
    const event = uniqueName("signup");
    const { id: workflowId } = await buildWorkflow(api, event, [{ type: "SEND_EMAIL", config: { templateId: template.id } }]);
    const to = uniqueEmail();
    await track(api, to, event, { plan: "pro" });
    const got = await waitFor(() => at("/by-workflow").find((r) => JSON.parse(r.body).data.email === to) ?? null, { timeoutMs: 20_000, what: "the workflow email's event" });
    expect(verify(hook.secret, got).data).toMatchObject({ workflowId, campaignId: null, sourceType: "WORKFLOW", email: to });
  });

  it("disables an endpoint whose every delivery failed for five days; a success stops the clock", async () => {
    const db = openDatabase(serviceDatabaseUrl(DATABASE_URL, platform.prefix, "workflows"), { max: 1 });
    try {
      const failing = await endpoint("/down-for-days");
      const recovering = await endpoint("/recovering");
      // both have failed since six days ago (10,000 times faster: about 52 s ago)
      await db`update webhook_endpoints set failing_since = now() - interval '52 seconds' where id = any(${[failing.id, recovering.id]}::uuid[])`;
      await api.post(`/webhooks/${recovering.id}/test`);
      await arrived("/recovering", 1);
      await api.post(`/webhooks/${failing.id}/test`);
      const off = await waitFor(async () => {
        const res = await api.get(`/webhooks/${failing.id}`);
        return res.body.enabled === false ? res.body : null;
      }, { what: "the failing endpoint disabled" });
      expect(off.disabledReason).toBe("every delivery failed for 5 days");
      const [clock] = await db<{ failing_since: Date | null }[]>`select failing_since from webhook_endpoints where id = ${recovering.id}`;
      expect(clock!.failing_since).toBeNull();
      expect((await api.get(`/webhooks/${recovering.id}`)).body.enabled).toBe(true);
      // enabling by hand starts afresh: the reason and the clock are cleared
      const on = await api.patch(`/webhooks/${failing.id}`, { enabled: true });
      expect(on.body).toMatchObject({ enabled: true, disabledReason: null });
    } finally {
      await db.end({ timeout: 1 });
    }
  });

  // last: it restarts the workflows service
  it("a stopping replica hands back the deliveries waiting for a slot: the next sends them at once, each one attempt", async () => {
    const db = openDatabase(serviceDatabaseUrl(DATABASE_URL, platform.prefix, "workflows"), { max: 1 });
    try {
      const hook = await endpoint("/queued", ["email.sent"], hanging);
      for (let i = 0; i < 4; i++) await send();
      const claimed = async () => {
        const [row] = await db<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where endpoint_id = ${hook.id} and lease_token is not null`;
        return row!.n;
      };
      // two calls under way (the endpoint's two slots), two more claimed and waiting for a slot
      await arrived("/queued", 2, hanging);
      await waitFor(async () => (await claimed()) === 4, { what: "four deliveries claimed" });
      await platform.stopService("workflows");
      const rows = await db<{ event_id: string; lease_token: string | null; attempts: number }[]>`
        select event_id, lease_token, attempts from webhook_deliveries where endpoint_id = ${hook.id}`;
      // the calls under way timed out within the stop's grace (attempted once); the waiting ones are
      // due again, unattempted, where a claim left to run out would hold them for 30 s
      expect(rows.map((r) => r.attempts).sort()).toEqual([0, 0, 1, 1]);
      const handedBack = rows.filter((r) => r.attempts === 0 && r.lease_token === null).map((r) => r.event_id);
      expect(handedBack).toHaveLength(2);
      // the hang has done its part (calls under way when the stop came): from here the endpoint
      // answers, so the timed-out calls' retries, due first, free their slots at once instead of
      // holding them for another 10 s ahead of the handed-back deliveries
      hangMs = 0;
      await platform.startService("workflows");
      await waitFor(() => handedBack.every((id) => at("/queued", hanging).some((r) => r.headers["webhook-id"] === id)), {
        timeoutMs: 15_000,
        what: "the handed-back deliveries sent by the next replica",
      });
    } finally {
      await db.end({ timeout: 1 });
    }
  });
});
