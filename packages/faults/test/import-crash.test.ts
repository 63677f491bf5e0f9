import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { killService, serviceDb, startRig, type Rig } from "../src/index.js";
import { scaled } from "./scale.js";

const ROWS = scaled(30_000);
/** Small batches stretch the apply phase, so there is a middle to kill in. */
const BATCH = 1000;

/**
 * kill -9 of the contacts service in the middle of a CSV import, then a restart: the import resumes
 * after its last committed batch (decisions §14, services/contacts/README.md "Crash safety") and
 * ends COMPLETED with exact counts: every row applied once, none half applied, the tracked segment
 * holding exactly the imported members, and the staging table gone.
 */
describe(`kill -9 of contacts during a ${ROWS}-row CSV import`, () => {
  let rig: Rig;
  let db: postgres.Sql;
  beforeAll(async () => {
    rig = await startRig({
      // sending answers the double opt-in setting an import is made with
      services: ["gateway", "contacts", "sending"],
      serviceEnv: { contacts: { IMPORT_BATCH_ROWS: String(BATCH), IMPORT_LEASE_MS: "2000" } },
    });
    db = serviceDb(rig, "contacts");
  });
  afterAll(async () => {
    await db?.end({ timeout: 1 });
    await rig?.destroy();
  });

  it("resumes after the last committed batch and ends with every row applied exactly once", async () => {
    // per attempt (the suite retries once), so a retry imports addresses of its own
    const run = randomBytes(3).toString("hex");
    const pro = `pro-${run}`;
    const filters = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: pro }] }] };
    const segment = await rig.api.post("/segments", { name: "Pro", filters, trackMembership: true });
    expect(segment.status).toBe(201);
    const lines = Array.from({ length: ROWS }, (_, i) => `c${i}-${run}@example.com,${i % 2 ? pro : "free"}`);
    const res = await rig.api.post("/contacts/imports", ["email,plan", ...lines].join("\n"), { "content-type": "text/csv" });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.id as string;

    const atKill = await waitFor(
      async () => {
        const r = (await rig.api.get(`/contacts/imports/${id}`)).body;
        return r.created >= ROWS * 0.2 ? r : null;
      },
      { timeoutMs: 120_000, intervalMs: 20, what: "the import to be a fifth of the way" },
    );
    await killService(rig.platform, "contacts", "SIGKILL");
    expect(atKill.created, "killed in the middle, not after the end").toBeLessThan(ROWS);
    await rig.platform.startService("contacts");

    const done = await waitFor(
      async () => {
        const r = (await rig.api.get(`/contacts/imports/${id}`)).body;
        return r.status === "RUNNING" ? null : r;
      },
      { timeoutMs: 180_000, intervalMs: 250, what: "the import to end after the restart" },
    );
    expect(done).toMatchObject({ status: "COMPLETED", rows: ROWS, created: ROWS, updated: 0, failed: 0, errors: [] });
    const [{ n }] = await db`select count(*)::int as n from contacts where project_id = ${rig.project.id} and email like ${`%-${run}@example.com`}`;
    expect(n).toBe(ROWS);
    const [{ members }] = await db`select count(*)::int as members from segment_members where segment_id = ${segment.body.id}`;
    expect(members).toBe(ROWS / 2);
    expect(await db`select 1 from pg_tables where tablename like 'contact\\_import\\_%'`).toEqual([]);
  });
});
