import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { openDatabase, type Sql } from "@mailroom/kit";
import { DATABASE_URL, Platform, apiClient, waitFor, type ServiceProcess } from "@mailroom/testkit";

/**
 * A sending replica that stalls (SIGSTOP) while it holds emails waiting for their turn at the
 * project's rate, and a second replica that takes them over once their leases ran out. A platform
 * of its own: one email a second per project keeps the stalled replica's emails between their claim
 * and their relay call, and a short delivery lease lets the takeover come in seconds.
 */
const LEASE_MS = 3000;
const RECIPIENTS = 5;

describe("a stalled sending replica", () => {
  let mailbox: Mailbox;
  let platform: Platform;
  let db: Sql;

  beforeAll(async () => {
    mailbox = await startMailbox({ smtpPort: 0, httpPort: 0 });
    platform = new Platform({ services: ["gateway", "contacts"], env: { SEND_RATE_PER_PROJECT: "1", DELIVERY_LEASE_MS: String(LEASE_MS) } });
    platform.env.SMTP_URL = mailbox.smtpUrl;
    await platform.start();
    const url = new URL(DATABASE_URL);
    url.pathname = `/${platform.prefix}_sending`;
    db = openDatabase(url.toString(), { max: 1 });
  });
  afterAll(async () => {
    await db?.end();
    await platform?.destroy();
    await mailbox?.stop();
  });

  /** The emails' status and lease, by id. */
  const records = async (ids: string[]) =>
    db<{ id: string; status: string; lease_token: string | null; expired: boolean }[]>`
      select id, status, lease_token, locked_until < now() as expired from emails where id = any(${ids}::uuid[])`;
  /** Lines of a replica's log (pino JSON) with this message. */
  const logged = (p: ServiceProcess, msg: string) =>
    readFileSync(p.logFile, "utf8")
      .split("\n")
      .filter((l) => l.includes(msg))
      .map((l) => JSON.parse(l) as { emailId?: string });

  it("stops once another took its emails over: each goes out once, sent and counted by the successor", async () => {
    const stalled = await platform.startService("sending");
    const project = await platform.createProject("takeover");
    await platform.verifyDomain(project.id, "takeover.example");
    const to = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@takeover.example`);
    const res = await apiClient(platform.url, project.secretKey).post("/v1/send", { to, from: "news@takeover.example", subject: "Takeover", body: "<p>once</p>" });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.emails.map((e: { email: string }) => e.email);

    // The first email goes out at once and is recorded; the others wait for their turn at one a
    // second, claimed by this replica. It stalls there.
    await waitFor(async () => (await records(ids)).some((r) => r.status !== "QUEUED"), { intervalMs: 20, what: "the first email recorded" });
    stalled.child.kill("SIGSTOP");
    const held = (await records(ids)).filter((r) => r.status === "QUEUED");
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((r) => r.lease_token !== null)).toBe(true);
    const heldIds = held.map((r) => r.id);

    try {
      await waitFor(async () => (await records(heldIds)).every((r) => r.expired), { timeoutMs: 15_000, intervalMs: 50, what: "the stalled replica's leases to run out" });
      // another replica takes the job over (its ack wait has run out too) and sends what was held
      await platform.startService("sending");
      await waitFor(async () => (await records(ids)).every((r) => r.status !== "QUEUED"), { timeoutMs: 30_000, what: "every email sent by the successor" });
    } finally {
      stalled.child.kill("SIGCONT");
    }

    // The stalled replica wakes with its emails still waiting for their turn; before each relay
    // call it asks its lease, learns it was taken over, and sends nothing.
    const skip = "delivery lease lost before the relay call";
    await waitFor(() => heldIds.every((id) => logged(stalled, skip).some((l) => l.emailId === id)), {
      timeoutMs: 30_000,
      what: "the stalled replica to skip each email it held",
    });
    expect(logged(stalled, "delivery leases lost; another holder has taken them over").length).toBeGreaterThan(0);
    const ours = mailbox.messages().filter((m) => m.subject === "Takeover");
    expect(ours.map((m) => m.envelope.rcptTo[0]).sort()).toEqual([...to].sort());
    const [stats] = await db`select sum(sent)::int as sent from email_stats_hourly where project_id = ${project.id}`;
    expect(stats!.sent).toBe(RECIPIENTS);
  }, 180_000);
});
