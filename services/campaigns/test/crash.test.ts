import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { DATABASE_URL, Platform, apiClient, waitFor, type ApiClient } from "@mailroom/testkit";
import { campaignBody, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";
import { seedContacts } from "./seed.js";

const RECIPIENTS = 2000;

/**
 * kill -9 in the middle of the work, on a platform of its own (its own sink, so every message in it
 * belongs to this campaign). Small pages and few enqueues in flight stretch the fan-out over seconds,
 * so there is a middle to kill it in; a short lease lets the restarted replica resume quickly.
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
      serviceEnv: { campaigns: { CAMPAIGNS_PAGE_SIZE: "100", CAMPAIGNS_ENQUEUE_BATCH: "25", CAMPAIGNS_ENQUEUE_CONCURRENCY: "4", CAMPAIGNS_LEASE_MS: "3000" } },
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
    expect(byTo.get(subscribed[1234]!)).toBe("n=1234");
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
});
