import postgres from "postgres";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { apiClient, type ApiClient, DATABASE_URL, Platform, waitFor } from "@mailroom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, executionIn, executionsWhen, track, uniqueEmail, uniqueName } from "./helpers.js";
import { type Receiver, startReceiver } from "./receiver.js";

/**
 * Crash safety and replicas, on a platform of its own: WORKFLOWS_TIME_SCALE=60 makes a DELAY minute
 * last one second, and a short lease lets a killed replica's work be taken over quickly.
 */
/** How often each replica looks for a due SCHEDULE tick (1 s by default). */
const SCHEDULE_POLL_MS = 250;
let platform: Platform;
let receiver: Receiver;
let api: ApiClient;
/** The workflows service's database: when its timers fall due is not in the API. */
let db: postgres.Sql;

beforeAll(async () => {
  receiver = await startReceiver();
  platform = new Platform({
    services: ["gateway", "contacts", "workflows"],
    env: {
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
      WORKFLOWS_TIME_SCALE: "60",
      WORKFLOWS_LEASE_MS: "3000",
      WORKFLOWS_SCHEDULE_POLL_MS: String(SCHEDULE_POLL_MS),
    },
  });
  await platform.start();
  api = apiClient(platform.url, (await platform.createProject()).secretKey);
  db = postgres(serviceDatabaseUrl(DATABASE_URL, platform.prefix, "workflows"), { max: 1, onnotice: () => undefined });
});

afterAll(async () => {
  await db?.end({ timeout: 1 });
  await platform?.destroy();
  await receiver?.close();
});

describe("durability and scale", () => {
  it("a DELAY survives kill -9 of the service and fires after the restart", async () => {
    const event = uniqueName("delay");
    const { id } = await buildWorkflow(api, event, [
      { type: "DELAY", config: { amount: 4, unit: "minutes" } }, // 4 s at this time scale
      { type: "UPDATE_CONTACT", config: { data: { delayed: true } } },
    ]);
    const email = uniqueEmail();
    await track(api, email, event);
    await executionIn(api, id, ["WAITING"]);
    await platform.stopService("workflows", "SIGKILL");
    // the timer falls due while no replica runs (PostgreSQL's clock, the one the engine compares with)
    await waitFor(async () => (await db`select count(*)::int as n from timers where due_at >= now()`)[0]!.n === 0, {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: "every timer due",
    });
    expect((await db`select count(*)::int as n from timers`)[0]!.n, "the DELAY's timer, still there").toBeGreaterThan(0);
    await platform.startService("workflows");
    const done = await executionIn(api, id, ["COMPLETED", "FAILED"], 15_000);
    expect(done.status).toBe("COMPLETED");
    expect(done.steps.map((s: any) => s.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    const contact = (await api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0];
    expect(contact.data).toMatchObject({ delayed: true });
  });

  it("two replicas run every step of many executions exactly once", { timeout: 60_000 }, async () => {
    await platform.startService("workflows"); // a second replica
    const event = uniqueName("many");
    const { id } = await buildWorkflow(api, event, [
      { type: "DELAY", config: { amount: 1, unit: "minutes" } },
      { type: "WEBHOOK", config: { url: `${receiver.url}/many` } },
      { type: "EXIT" },
    ]);
    const n = 60;
    await Promise.all(Array.from({ length: n }, () => track(api, uniqueEmail("many"), event)));
    const list = await executionsWhen(api, id, (l) => l.length === n && l.every((e) => e.status === "EXITED"), 40_000);
    const calls = receiver.received.filter((r) => r.url === "/many").map((r) => JSON.parse(r.body).execution.id);
    expect(calls).toHaveLength(n);
    expect(new Set(calls)).toEqual(new Set(list.map((e) => e.id)));
  });

  it("a SCHEDULE tick starts each subscribed contact once across replicas", { timeout: 90_000 }, async () => {
    const subscribed = [uniqueEmail("s1"), uniqueEmail("s2")];
    for (const email of subscribed) expect((await api.post("/contacts", { email })).status).toBe(201);
    expect((await api.post("/contacts", { email: uniqueEmail("u"), subscribed: false })).status).toBe(201);
    const { id } = await buildWorkflow(api, uniqueName("sched"), [{ type: "EXIT" }], { enable: false });
    const patched = await api.patch(`/workflows/${id}`, { enabled: true, triggerType: "SCHEDULE", triggerConfig: { cron: "* * * * *", timezone: "Europe/Paris" } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // every subscribed contact of the project (the earlier tests' contacts too), never the unsubscribed one
    const contacts = (await api.get("/contacts?limit=100")).body.data as Array<{ id: string; subscribed: boolean }>;
    const expected = contacts.filter((c) => c.subscribed).map((c) => c.id);
    const list = await executionsWhen(api, id, (l) => l.length >= expected.length && l.every((e) => e.status === "EXITED"), 75_000);
    // One claim of one tick, which every execution carries ...
    expect((await db`select count(*)::int as n from schedule_ticks where workflow_id = ${id}`)[0]!.n).toBe(1);
    // ... and no replica adds more after several more looks each (this wait is the other replica's turn).
    await new Promise((r) => setTimeout(r, 4 * SCHEDULE_POLL_MS));
    const after = (await api.get(`/workflows/${id}/executions?limit=100`)).body.data as any[];
    expect(after).toHaveLength(list.length);
    expect(after.map((e) => e.contactId).sort()).toEqual(expected.sort());
    expect(after[0].context.event.scheduledAt).toMatch(/:00\.000Z$/);
    expect(new Set(after.map((e) => e.context.event.scheduledAt)).size).toBe(1);
  });
});
