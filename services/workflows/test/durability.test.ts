import { randomUUID } from "node:crypto";
import { openDatabase, serviceDatabaseUrl, type Sql } from "@mailroom/kit";
import { apiClient, type ApiClient, DATABASE_URL, Platform, waitFor, type Receiver, setProjectClockBeforeMinute, startReceiver } from "@mailroom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitsRepo } from "../src/db/waits-repo.js";
import { buildWorkflow, executionIn, executionsWhen, track, uniqueEmail, uniqueName } from "./helpers.js";

/**
 * Crash safety and replicas, on a platform of its own: WORKFLOWS_TIME_SCALE=60 makes a DELAY minute
 * last one second, and a short lease lets a killed replica's work be taken over quickly.
 */
/** How often each replica looks for a due SCHEDULE tick (1 s by default). */
const SCHEDULE_POLL_MS = 250;
let platform: Platform;
let receiver: Receiver;
let api: ApiClient;
let projectId: string;
/** The workflows service's database: when its timers fall due is not in the API. */
let db: Sql;

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
  const project = await platform.createProject();
  api = apiClient(platform.url, project.secretKey);
  projectId = project.id;
  // the service's own client (its jsonb parameters are caller-made JSON text); two connections for the race below
  db = openDatabase(serviceDatabaseUrl(DATABASE_URL, platform.prefix, "workflows"), { max: 2 });
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

  it("an event and the timer racing end each wait exactly once", async () => {
    const paid = uniqueName("paid");
    const { id, stepIds } = await buildWorkflow(api, uniqueName("race"), [
      { type: "WAIT_FOR_EVENT", config: { eventName: paid, timeout: 3600 } }, // 60 s at this time scale: the test makes it due
      { type: "UPDATE_CONTACT", config: { data: { outcome: "event" } } },
      { type: "UPDATE_CONTACT", config: { data: { outcome: "timeout" } }, after: 0 },
    ]);
    const start = (await api.get(`/workflows/${id}`)).body.triggerConfig.eventName as string;
    const n = 20;
    await Promise.all(Array.from({ length: n }, () => track(api, uniqueEmail("race"), start)));
    const waiting = await executionsWhen(api, id, (l) => l.length === n && l.every((e) => e.status === "WAITING"));
    // The two statements that end a wait, at once on two connections, as the trigger consumer and the
    // poller (which may join in) would run them; a lease of 0 leaves what they claim to the service.
    const due = waiting.slice(0, n / 2).map((e) => e.id as string);
    const [row] = await db<Array<{ project_id: string }>>`select project_id from executions where id = ${due[0]!}`;
    const projectId = row!.project_id;
    // half the timers fall due now: those waits race, the others can only end by the event
    await db`update timers set due_at = now() where execution_id = any(${due}::uuid[])`;
    const occurredAt = new Date().toISOString();
    const events = waiting.map((e) => ({ projectId, contactId: e.contactId as string, name: paid, occurredAt, data: { paid: true } }));
    const [t, r] = await Promise.all([waitsRepo.timeOut(db, n, randomUUID(), 0), waitsRepo.resume(db, events, randomUUID(), 0)]);
    const [resumed, timedOut] = [r.map((c) => c.id), t.map((c) => c.id)];
    expect(resumed.filter((e) => timedOut.includes(e))).toEqual([]);
    expect(timedOut.filter((e) => !due.includes(e))).toEqual([]);
    expect(resumed).toEqual(expect.arrayContaining(waiting.map((e) => e.id).filter((e) => !due.includes(e))));
    const done = await executionsWhen(api, id, (l) => l.length === n && l.every((e) => e.status === "COMPLETED"), 30_000);
    for (const e of done) {
      const detail = (await api.get(`/workflows/${id}/executions/${e.id}`)).body;
      const ran = detail.steps.map((s: { stepId: string }) => s.stepId).filter((s: string) => s === stepIds[1] || s === stepIds[2]);
      // resumed by the event: its edge and its data; timed out (by the test or the service's poller): the other edge
      expect(ran).toEqual([resumed.includes(e.id) ? stepIds[1] : stepIds[2]]);
      expect(detail.context.event.paid).toBe(resumed.includes(e.id) ? true : undefined);
    }
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

  it("a SCHEDULE tick starts each subscribed contact once across replicas, at the project's minute", { timeout: 60_000 }, async () => {
    const subscribed = [uniqueEmail("s1"), uniqueEmail("s2")];
    for (const email of subscribed) expect((await api.post("/contacts", { email })).status).toBe(201);
    expect((await api.post("/contacts", { email: uniqueEmail("u"), subscribed: false })).status).toBe(201);
    const { id } = await buildWorkflow(api, uniqueName("sched"), [{ type: "EXIT" }], { enable: false });
    const patched = await api.patch(`/workflows/${id}`, { enabled: true, triggerType: "SCHEDULE", triggerConfig: { cron: "* * * * *", timezone: "Europe/Paris" } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // the tick follows the project's time, so it comes a second and a half from now instead of at the real minute
    setProjectClockBeforeMinute(platform.env, projectId);
    // every subscribed contact of the project (the earlier tests' contacts too), never the unsubscribed one
    const contacts = (await api.get("/contacts?limit=100")).body.data as Array<{ id: string; subscribed: boolean }>;
    const expected = contacts.filter((c) => c.subscribed).map((c) => c.id);
    const list = await executionsWhen(api, id, (l) => l.length >= expected.length && l.every((e) => e.status === "EXITED"), 30_000);
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
