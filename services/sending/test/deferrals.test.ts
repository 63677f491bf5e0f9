import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { Platform, apiClient, waitFor, type ApiClient } from "@mailroom/testkit";
import { familyEvents } from "./events.js";

/** 1, 5, 15 and 60 minutes become 0.1, 0.5, 1.5 and 6 s; two hours 12 s. */
const TIME_SCALE = 600;
const SCHEDULE_MS = [100, 500, 1500, 6000];
/** The fourth retry comes 8.1 s after the first answer; the one after it would be past 10 s. */
const MAX_AGE = "10s";

/**
 * A relay's 4xx defers an email on the schedule of decisions.md §18 until DELIVERY_MAX_AGE, then
 * it expires: a transient bounce and `email.failed`. A platform of its own with its own SMTP sink,
 * so the sink can refuse on a schedule and the sending process can be killed.
 */
describe("deferred delivery (a relay's 4xx)", () => {
  let mailbox: Mailbox;
  let platform: Platform;
  let api: ApiClient;
  let projectId: string;
  let from: string;

  beforeAll(async () => {
    mailbox = await startMailbox({ maxMessages: 1000 });
    platform = new Platform({
      services: ["gateway", "contacts", "sending"],
      // a short lease: a worker killed mid-call leaves its email to the restarted one soon
      env: { SMTP_URL: mailbox.smtpUrl, RETURN_PATH_DOMAIN: "rp.mailroom.test", DELIVERY_TIME_SCALE: String(TIME_SCALE), DELIVERY_MAX_AGE: MAX_AGE, DELIVERY_LEASE_MS: "2000" },
    });
    await platform.start();
    const project = await platform.createProject("deferrals");
    projectId = project.id;
    api = apiClient(platform.url, project.secretKey);
    const domain = `def-${randomBytes(4).toString("hex")}.mailroom.test`;
    await platform.verifyDomain(project.id, domain);
    from = `d@${domain}`;
  });
  afterAll(async () => {
    mailbox?.failNext(0, 451, "");
    await platform?.destroy();
    await mailbox?.stop();
  });

  const send = async (to: string) => {
    const res = await api.post("/v1/send", { to, from, subject: "Deferred", body: "<p>d</p>" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.emails[0].email as string;
  };
  const email = async (id: string) => (await api.get(`/emails/${id}`)).body;
  const refusedAt = (to: string) => mailbox.refusals().filter((r) => r.to === to).map((r) => r.at.getTime());

  it("answered 451 three times, the email arrives on the fourth attempt, each retry at its scheduled time", async () => {
    const to = `thrice-${randomBytes(4).toString("hex")}@example.com`;
    mailbox.failNext(3, 451, "4.7.0 Try again later");
    const id = await send(to);
    const [arrived] = await mailbox.waitFor((m) => m.envelope.rcptTo.includes(to), 30_000);
    await waitFor(async () => (await email(id)).status === "DELIVERED" || null, { timeoutMs: 15_000, what: "the record DELIVERED" });

    const attempts = [...refusedAt(to), Date.parse(arrived!.receivedAt)];
    expect(attempts).toHaveLength(4);
    const waits = attempts.slice(1).map((t, i) => t - attempts[i]!);
    for (const [i, wait] of waits.entries()) {
      // never before its time; after it by no more than a claim and a relay call on a busy machine
      expect(wait, `retry ${i + 1}: ${waits.join(", ")} ms`).toBeGreaterThanOrEqual(SCHEDULE_MS[i]! - 20);
      expect(wait, `retry ${i + 1}: ${waits.join(", ")} ms`).toBeLessThan(SCHEDULE_MS[i]! + 3000);
    }
    expect(mailbox.messages().filter((m) => m.envelope.rcptTo.includes(to))).toHaveLength(1);
  }, 60_000);

  it("answered 421 every time, the email expires at DELIVERY_MAX_AGE across a kill -9 of sending: a transient bounce, then email.failed, never sent", async () => {
    const to = `always-${randomBytes(4).toString("hex")}@example.com`;
    mailbox.failNext(1_000_000, 421, "4.7.28 Rate limited, try again later");
    try {
      const id = await send(to);
      await waitFor(() => refusedAt(to).length >= 2 || null, { timeoutMs: 20_000, intervalMs: 20, what: "two refusals" });
      await platform.stopService("sending", "SIGKILL");
      await platform.startService("sending");

      const done = await waitFor(async () => ((await email(id)).status === "FAILED" ? email(id) : null), { timeoutMs: 60_000, intervalMs: 250, what: "the email to expire" });
      expect(done.status).toBe("FAILED");
      const refusals = refusedAt(to);
      // The attempts count survives the restart: the schedule went on, not back to its start. Five
      // 4xx fit in the maximum age, and one more when the kill fell between a refusal and its record
      // (a loaded machine lets the third attempt in before the kill); a schedule started again
      // after the kill would add four or five to the two before it.
      expect(refusals.length).toBeGreaterThanOrEqual(3);
      expect(refusals.length).toBeLessThanOrEqual(6);
      // An attempt is scheduled only while it falls within the maximum age; it reaches the sink
      // later by however long a redelivery and a relay call take on a busy machine (the 3 s the first
      // test allows a retry). A schedule that ignored the age would try a sixth time 20 s after the first.
      expect(refusals.at(-1)! - refusals[0]!).toBeLessThan(10_000 + 3000);
      expect(mailbox.messages().filter((m) => m.envelope.rcptTo.includes(to))).toHaveLength(0);

      const events = await familyEvents(platform.prefix, "email", projectId, (e) => e.data.emailId === id && (e.name === "email.bounce" || e.name === "email.failed"), 2);
      const bounce = events.find((e) => e.name === "email.bounce")!;
      expect(bounce.data).toMatchObject({ bounceType: "Transient", transientBounce: true, expired: true });
      expect(String(bounce.data.diagnostic)).toContain("421");
      const failed = events.find((e) => e.name === "email.failed")!;
      expect(String(failed.data.reason)).toMatch(/^expired/);
      expect(events.map((e) => e.name)).toEqual(["email.bounce", "email.failed"]);
    } finally {
      mailbox.failNext(0, 421, "");
    }
  }, 90_000);
});
