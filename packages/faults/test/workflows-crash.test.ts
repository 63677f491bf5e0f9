import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { type ApiClient, waitFor } from "@mailroom/testkit";
import { call, pool, startRig, type Rig } from "../src/index.js";
import { scaled } from "./scale.js";

const EXECUTIONS = scaled(300);
/** At WORKFLOWS_TIME_SCALE=60 a DELAY minute lasts a second: 20 "minutes" leave time to kill mid-wait. */
const DELAY_MINUTES = 20;

async function executions(api: ApiClient, workflowId: string, status?: string): Promise<Array<{ id: string; status: string }>> {
  const all: Array<{ id: string; status: string }> = [];
  let cursor: string | null = null;
  do {
    const q: string = `limit=100${status ? `&status=${status}` : ""}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await api.get(`/workflows/${workflowId}/executions?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    all.push(...res.body.data);
    cursor = res.body.hasMore ? res.body.cursor : null;
  } while (cursor);
  return all;
}

/**
 * kill -9 of the workflows service while every execution waits on a DELAY timer; the timers fall
 * due while no replica runs. After the restart each timer fires exactly once: the WEBHOOK step after
 * the DELAY reaches the receiver once per execution, and every execution ends EXITED.
 */
describe(`kill -9 of workflows during ${EXECUTIONS} WAITING executions`, () => {
  let rig: Rig;
  let receiver: Server;
  /** The workflows service's database: when its timers fall due is not in the API. */
  let db: postgres.Sql;
  const calls: string[] = [];
  /** Timers that are due (or not yet). */
  const timers = async (due: boolean) => (await db<{ n: number }[]>`select count(*)::int as n from timers where (due_at <= now()) = ${due}`)[0]!.n;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        calls.push(JSON.parse(body).execution.id);
        res.end("ok");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as AddressInfo).port;
    rig = await startRig({
      services: ["gateway", "contacts", "workflows"],
      env: { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${port}`, WORKFLOWS_TIME_SCALE: "60", WORKFLOWS_LEASE_MS: "3000" },
    });
    db = postgres(serviceDatabaseUrl(rig.platform.env.DATABASE_URL!, rig.platform.prefix, "workflows"), { max: 1, onnotice: () => undefined });
  });
  afterAll(async () => {
    await db?.end({ timeout: 1 });
    await rig?.destroy();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it("every timer fires once after the restart", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const event = `fault-${randomBytes(4).toString("hex")}`;
    const wf = await rig.api.post("/workflows", { name: "fault", eventName: event, allowReentry: false });
    expect(wf.status, JSON.stringify(wf.body)).toBe(201);
    let after = wf.body.steps[0].id as string;
    for (const step of [
      { type: "DELAY", config: { amount: DELAY_MINUTES, unit: "minutes" } },
      { type: "WEBHOOK", config: { url: `http://127.0.0.1:${port}/fired` } },
      { type: "EXIT", config: {} },
    ]) {
      const res = await rig.api.post(`/workflows/${wf.body.id}/steps`, { ...step, after });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      after = res.body.id;
    }
    expect((await rig.api.patch(`/workflows/${wf.body.id}`, { enabled: true })).status).toBe(200);

    const run = randomBytes(3).toString("hex");
    await pool(EXECUTIONS, 8, async (i) => {
      const r = await call(`${rig.platform.url}/v1/track`, { key: rig.project.secretKey, body: { email: `wf-${run}-${i}@example.com`, event } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    });
    await waitFor(async () => (await executions(rig.api, wf.body.id, "WAITING")).length === EXECUTIONS, {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: `${EXECUTIONS} WAITING executions`,
    });
    expect(calls, "no timer fired before the kill").toEqual([]);

    await rig.platform.stopService("workflows", "SIGKILL");
    // every timer falls due while no replica runs (PostgreSQL's clock, the one the engine compares with)
    await waitFor(async () => (await timers(false)) === 0, { timeoutMs: DELAY_MINUTES * 1000 + 10_000, intervalMs: 250, what: "every timer due" });
    expect(await timers(true), "every timer still there, due").toBe(EXECUTIONS);
    await rig.platform.startService("workflows");

    const done = await waitFor(
      async () => {
        const list = await executions(rig.api, wf.body.id);
        return list.every((e) => e.status === "EXITED") ? list : null;
      },
      { timeoutMs: 120_000, intervalMs: 1000, what: "every execution to end" },
    );
    // no timer is left to fire a second time
    expect((await timers(true)) + (await timers(false))).toBe(0);
    expect(done).toHaveLength(EXECUTIONS);
    expect(calls).toHaveLength(EXECUTIONS);
    expect(new Set(calls)).toEqual(new Set(done.map((e) => e.id)));
  }, 300_000);
});
