import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { DATABASE_URL, Platform, apiClient, setProjectClock, waitFor, type ApiClient } from "@mailroom/testkit";
import { campaignBody, createContacts, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";
import { seedContacts } from "./seed.js";

/**
 * Enough that the fan-out and the delivery are still under way when their 300th recipient is seen,
 * with hundreds to go, on a quiet machine as on a loaded one; every message costs the suite CPU.
 */
const RECIPIENTS = 1000;

/**
 * kill -9 in the middle of the work, on a platform of its own (its own sink, so every message in it
 * belongs to this campaign). Small pages and few enqueues in flight stretch the fan-out over seconds,
 * so there is a middle to kill it in; short leases and ack waits let the restarted replica resume quickly.
 */
describe("a crash in the middle of a campaign", () => {
  let mailbox: Mailbox;
  let platform: Platform;
  let api: ApiClient;
  let from: string;
  const subscribed = Array.from({ length: RECIPIENTS }, () => uniqueAddress("crash"));
  const unsubscribed = Array.from({ length: 50 }, () => uniqueAddress("gone"));

  beforeAll(async () => {
    mailbox = await startMailbox({ maxMessages: 100_000 });
    platform = new Platform({
      services: ["gateway", "contacts", "sending", "campaigns"],
      env: { SMTP_URL: mailbox.smtpUrl, RETURN_PATH_DOMAIN: "bounces.mailroom.test" },
      serviceEnv: {
        campaigns: { CAMPAIGNS_PAGE_SIZE: "100", CAMPAIGNS_ENQUEUE_BATCH: "25", CAMPAIGNS_ENQUEUE_CONCURRENCY: "4", CAMPAIGNS_LEASE_MS: "3000", CONSUMER_ACK_WAIT_MS: "3000" },
        // the killed sending replica's emails are taken over once its leases (and its jobs' ack wait)
        // run out: 5 s, where the 15 s default was most of the second test's time (renewed every third of
        // it, so only a replica stalled for seconds loses one, which would repeat a message)
        sending: { DELIVERY_LEASE_MS: "5000" },
      },
    });
    await platform.start();
    const project = await platform.createProject("crash");
    api = apiClient(platform.url, project.secretKey);
    from = await verifiedSender(project.id, platform.env);
    await seedContacts(DATABASE_URL, platform.prefix, project.id, [
      ...subscribed.map((email, i) => ({ email, subscribed: true, data: { n: i } })),
      ...unsubscribed.map((email) => ({ email, subscribed: false })),
    ]);
  }, 120_000);

  afterAll(async () => {
    await platform?.destroy();
    await mailbox?.stop();
  });

  it("kill -9 of the campaigns service during fan-out: every recipient gets exactly one message and the campaign ends SENT", async () => {
    const c = (await api.post("/campaigns", campaignBody(from, { subject: "n={{ n }}" }))).body.data;
    expect((await api.post(`/campaigns/${c.id}/send`)).body.data.status).toBe("SENDING");

    const atKill = await waitFor(
      async () => {
        const r = (await api.get(`/campaigns/${c.id}`)).body.stats.recipients;
        return r >= 300 ? r : null;
      },
      { timeoutMs: 60_000, intervalMs: 20, what: "the fan-out to be under way" },
    );
    const [campaigns] = platform.procs.get("campaigns")!;
    campaigns!.child.kill("SIGKILL");
    await new Promise((r) => campaigns!.child.once("exit", r));
    expect(atKill).toBeLessThan(RECIPIENTS);
    const inSinkAtKill = mailbox.messages().length;
    expect(inSinkAtKill).toBeLessThan(RECIPIENTS);

    await platform.startService("campaigns");
    const done = await waitForStatus(api, c.id, "SENT", 120_000);
    expect(done.stats).toMatchObject({ recipients: RECIPIENTS, sent: RECIPIENTS, delivered: RECIPIENTS, failed: 0 });

    const msgs = mailbox.messages();
    const perRecipient = new Map<string, number>();
    for (const m of msgs) for (const to of m.envelope.rcptTo) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
    expect(msgs).toHaveLength(RECIPIENTS);
    expect(new Set(msgs.map((m) => m.messageId)).size).toBe(RECIPIENTS);
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(perRecipient.keys())).toEqual(new Set(subscribed));
    // Each got their own rendering.
    const byTo = new Map(msgs.map((m) => [m.envelope.rcptTo[0]!, m.subject]));
    expect(byTo.get(subscribed[789]!)).toBe("n=789");
  }, 240_000);

  it("kill -9 of the sending service during delivery (and fan-out): one email per recipient, the campaign ends SENT with exact stats", async () => {
    mailbox.clear();
    const c = (await api.post("/campaigns", campaignBody(from))).body.data;
    expect((await api.post(`/campaigns/${c.id}/send`)).body.data.status).toBe("SENDING");
    await waitFor(() => mailbox.messages().length >= 300, { timeoutMs: 60_000, intervalMs: 20, what: "delivery to be under way" });
    const [sending] = platform.procs.get("sending")!;
    sending!.child.kill("SIGKILL");
    await new Promise((r) => sending!.child.once("exit", r));
    platform.procs.delete("sending");
    await platform.startService("sending");

    const done = await waitForStatus(api, c.id, "SENT", 180_000);
    // Stats count each email once, even one the relay got twice.
    expect(done.stats).toMatchObject({ recipients: RECIPIENTS, sent: RECIPIENTS, failed: 0 });
    const messageIds = new Map<string, Set<string>>();
    for (const m of mailbox.messages()) {
      const to = m.envelope.rcptTo[0]!;
      messageIds.set(to, (messageIds.get(to) ?? new Set()).add(m.messageId!));
    }
    expect(new Set(messageIds.keys())).toEqual(new Set(subscribed));
    // One email record per recipient: a message repeated by the relay hand-off carries the same Message-ID.
    expect([...messageIds.values()].every((ids) => ids.size === 1)).toBe(true);
    const repeats = mailbox.messages().length - RECIPIENTS;
    if (repeats > 0) console.warn(`sending repeated ${repeats} message(s) after its kill -9 (same Message-ID)`);
  }, 300_000);

  it("kill -9 of the campaigns service while recipients wait for their local time: each is mailed once, at its 09:00", async () => {
    mailbox.clear();
    // a project of its own (the other tests' thousands of contacts are not this campaign's), on a clock of the test's
    const project = await platform.createProject("crash-local-time");
    const local = apiClient(platform.url, project.secretKey);
    const sender = await verifiedSender(project.id, platform.env);
    const tokyo = Array.from({ length: 10 }, () => uniqueAddress("hold-tokyo"));
    const newYork = Array.from({ length: 10 }, () => uniqueAddress("hold-ny"));
    await createContacts(local, [
      ...tokyo.map((email) => ({ email, subscribed: true, data: { timezone: "Asia/Tokyo" } })),
      ...newYork.map((email) => ({ email, subscribed: true, data: { timezone: "America/New_York" } })),
    ]);
    let offsetMs = 0;
    const setClock = (iso: string) => {
      offsetMs = Date.parse(iso) - Date.now();
      setProjectClock(platform.env, project.id, new Date(iso));
    };
    const arrivals = (to: string[]) => mailbox.messages().filter((m) => to.includes(m.envelope.rcptTo[0]!));
    // the project's time of an arrival, from the sink's (real) time and the clock's offset then
    const at = (m: { receivedAt: string }) => Date.parse(m.receivedAt) + offsetMs;

    setClock("2026-03-07T20:00:00Z"); // 05:00 in Tokyo, 15:00 the day before in New York
    const c = (await local.post("/campaigns", campaignBody(sender, { deliverAt: { localTime: "09:00", fallbackTimezone: "UTC" } }))).body.data;
    expect((await local.post(`/campaigns/${c.id}/send`)).body.data.status).toBe("SENDING");
    await waitFor(async () => (await local.get(`/campaigns/${c.id}`)).body.stats.waiting === 20, { timeoutMs: 60_000, what: "every recipient held for its local time" });

    const campaigns = platform.procs.get("campaigns")!.at(-1)!;
    campaigns.child.kill("SIGKILL");
    await new Promise((r) => campaigns.child.once("exit", r));
    platform.procs.delete("campaigns");
    await platform.startService("campaigns");

    setClock("2026-03-07T23:59:58.500Z"); // 08:59:58.5 in Tokyo
    await waitFor(() => arrivals(tokyo).length >= 10, { timeoutMs: 30_000, what: "the Tokyo recipients' emails" });
    expect(Math.min(...arrivals(tokyo).map(at))).toBeGreaterThanOrEqual(Date.parse("2026-03-08T00:00:00Z"));
    // the fan-out settles the released recipients just after sending took them
    await waitFor(async () => (await local.get(`/campaigns/${c.id}`)).body.stats.waiting === 10, { timeoutMs: 15_000, what: "the New York recipients alone waiting" });
    expect((await local.get(`/campaigns/${c.id}`)).body.stats).toMatchObject({ recipients: 20, waiting: 10 });
    setClock("2026-03-08T12:59:58.500Z"); // 08:59:58.5 EDT in New York
    const done = await waitForStatus(local, c.id, "SENT", 60_000);
    expect(done.stats).toMatchObject({ recipients: 20, sent: 20, failed: 0, waiting: 0 });

    // released once each after the restart: one message per recipient, none before its 09:00
    expect(arrivals(tokyo).map((m) => m.envelope.rcptTo[0]).sort()).toEqual([...tokyo].sort());
    expect(arrivals(newYork).map((m) => m.envelope.rcptTo[0]).sort()).toEqual([...newYork].sort());
    expect(Math.min(...arrivals(newYork).map(at))).toBeGreaterThanOrEqual(Date.parse("2026-03-08T13:00:00Z"));
    expect(mailbox.messages()).toHaveLength(20);
  }, 180_000);
});
