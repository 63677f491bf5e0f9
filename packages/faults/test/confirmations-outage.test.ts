import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { killService, serviceDb, startRig, type Rig } from "../src/index.js";

/**
 * Double opt-in confirmations of a CSV import while the sending service is down: they are recorded
 * with the batch that asked for them, wait, and are mailed exactly once after sending comes back
 * (decisions §14; services/contacts/README.md, the ConfirmationMailer).
 */
describe("double opt-in confirmations of an import while sending is down", () => {
  let rig: Rig;
  let db: postgres.Sql;
  beforeAll(async () => {
    rig = await startRig({
      services: ["gateway", "contacts", "sending"],
      serviceEnv: { contacts: { CONFIRMATION_RETRY_MS: "1500", IMPORT_BATCH_ROWS: "1000" } },
    });
    db = serviceDb(rig, "contacts");
  });
  afterAll(async () => {
    await db?.end({ timeout: 1 });
    await rig?.destroy();
  });

  it("keeps them until sending is back, then mails each once", async () => {
    const run = randomBytes(3).toString("hex");
    expect((await rig.api.patch("/settings/sending", { doubleOptIn: { enabled: true } })).status).toBe(200);
    // One import of a project runs at a time: the confirming one waits behind a long one that asks
    // for none, so its batch commits well after sending is gone.
    const declined = Array.from({ length: 20_000 }, (_, i) => `no${i}-${run}@example.com,false`);
    const first = await rig.api.post("/contacts/imports", ["email,subscribed", ...declined].join("\n"), { "content-type": "text/csv" });
    const asking = [`a-${run}@example.com`, `b-${run}@example.com`];
    const second = await rig.api.post("/contacts/imports", ["email,subscribed", ...asking.map((a) => `${a},true`)].join("\n"), { "content-type": "text/csv" });
    expect([first.status, second.status]).toEqual([202, 202]);
    await killService(rig.platform, "sending", "SIGKILL");

    const done = await waitFor(
      async () => {
        const r = (await rig.api.get(`/contacts/imports/${second.body.id}`)).body;
        return r.status === "RUNNING" ? null : r;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: "the confirming import to end" },
    );
    expect(done).toMatchObject({ status: "COMPLETED", created: 2, awaitingConfirmation: 2 });
    // the calls have failed at least once: the requests are still there, tried again and again
    await waitFor(async () => {
      const rows = await db`select attempts from pending_confirmations where email like ${`%-${run}@example.com`}`;
      return rows.length === 2 && rows.every((r) => r.attempts >= 1);
    }, { timeoutMs: 30_000, what: "both requests to have been tried" });
    expect(rig.mailbox.messages().length).toBe(0);

    await rig.platform.startService("sending");
    await waitFor(() => asking.every((a) => rig.mailbox.messages().some((m) => m.envelope.rcptTo.includes(a))), {
      timeoutMs: 60_000,
      what: "both confirmation emails after sending is back",
    });
    await waitFor(async () => (await db`select 1 from pending_confirmations`).length === 0, { timeoutMs: 30_000, what: "the requests to be done" });
    const sent = rig.mailbox.messages().filter((m) => m.envelope.rcptTo.some((r) => asking.includes(r)));
    for (const m of sent) expect(m.subject).toMatch(/^Confirm your subscription to /);
    expect(sent).toHaveLength(2);
    expect(sent.map((m) => m.envelope.rcptTo[0]).sort()).toEqual([...asking].sort());
  });
});
