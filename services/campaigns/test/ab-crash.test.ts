import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { DATABASE_URL, Platform, apiClient, waitFor, type ApiClient } from "@mailroom/testkit";
import { campaignBody, countPerRecipient, trackedLinksOf, uniqueAddress, verifiedSender, waitForStatus, type SinkMessage } from "./helpers.js";
import { seedContacts } from "./seed.js";

/** Enough that the winner's fan-out still has hundreds to go when its 100th is seen; each costs the suite CPU. */
const RECIPIENTS = 500;
const SAMPLE = RECIPIENTS / 10; // samplePercent: 10

/**
 * kill -9 of the campaigns service during an A/B test's wait, and again during the winner's
 * fan-out, on a platform of its own (its own sink: every message in it is this campaign's). A
 * minute lasts a second here (CAMPAIGNS_AB_MINUTE_MS), so `waitMinutes: 15` waits 15 s; small pages
 * and batches stretch the winner's fan-out so there is a middle to kill it in.
 */
describe("a crash during an A/B test", () => {
  let mailbox: Mailbox;
  let platform: Platform;
  let api: ApiClient;
  let anon: ApiClient;
  let from: string;
  const audience = Array.from({ length: RECIPIENTS }, () => uniqueAddress("abc"));

  beforeAll(async () => {
    mailbox = await startMailbox({ maxMessages: 100_000 });
    platform = new Platform({
      services: ["gateway", "contacts", "sending", "campaigns"],
      env: { SMTP_URL: mailbox.smtpUrl, RETURN_PATH_DOMAIN: "bounces.mailroom.test" },
      serviceEnv: {
        campaigns: {
          CAMPAIGNS_PAGE_SIZE: "50",
          CAMPAIGNS_ENQUEUE_BATCH: "10",
          CAMPAIGNS_ENQUEUE_CONCURRENCY: "2",
          CAMPAIGNS_LEASE_MS: "3000",
          // the email events a killed replica held (its stats consumer's) come back 3 s after the
          // kill, not the default 30 s: the campaign turned SENT half a minute after its last email
          CONSUMER_ACK_WAIT_MS: "3000",
        },
      },
    });
    await platform.start();
    const project = await platform.createProject("ab-crash");
    api = apiClient(platform.url, project.secretKey);
    anon = apiClient(platform.url);
    from = await verifiedSender(project.id, platform.env);
    await seedContacts(DATABASE_URL, platform.prefix, project.id, audience.map((email, i) => ({ email, subscribed: true, data: { n: i } })));
  }, 120_000);

  afterAll(async () => {
    await platform?.destroy();
    await mailbox?.stop();
  });

  async function killCampaigns() {
    const [campaigns] = platform.procs.get("campaigns")!;
    campaigns!.child.kill("SIGKILL");
    await new Promise((r) => campaigns!.child.once("exit", r));
    platform.procs.delete("campaigns");
  }

  it("kill -9 during the wait and during the winner's fan-out: the winner by click rate, every recipient mailed exactly once", async () => {
    const body = `<p>Hello {{ n }}</p><a href="https://example.com/offer">Offer</a>`;
    const c = (
      await api.post(
        "/campaigns",
        campaignBody(from, {
          subject: "Main",
          body,
          variants: [{ subject: "Subject A" }, { subject: "Subject B" }],
          abTest: { samplePercent: 10, metric: "clicked", waitMinutes: 15 },
        }),
      )
    ).body.data;
    expect((await api.post(`/campaigns/${c.id}/send`)).body.data.status).toBe("SENDING");

    const waiting = await waitFor(async () => {
      const got = (await api.get(`/campaigns/${c.id}`)).body;
      return got.winnerDueAt ? got : null;
    }, { timeoutMs: 60_000, what: "the sample handed over and the wait started" });
    expect(waiting.stats.variants.map((v: any) => v.recipients)).toEqual([SAMPLE / 2, SAMPLE / 2]);

    // kill -9 in the wait; the sample's clicks come in while the service is down (events wait in the stream)
    await killCampaigns();
    const sample = await waitFor(() => (mailbox.messages().length >= SAMPLE ? (mailbox.messages() as SinkMessage[]) : null), {
      timeoutMs: 60_000,
      what: "the sample's emails",
    });
    expect(sample).toHaveLength(SAMPLE);
    const a = sample.filter((m) => m.subject === "Subject A");
    const b = sample.filter((m) => m.subject === "Subject B");
    expect([a.length, b.length]).toEqual([SAMPLE / 2, SAMPLE / 2]);
    // B: 3 readers click (one twice, still one clicker); A: 1 reader
    for (const m of [b[0]!, b[0]!, b[1]!, b[2]!, a[0]!]) expect((await anon.get(trackedLinksOf(m)[0]!)).status).toBe(302);
    expect(Date.now(), "the wait must still be running when the service is killed").toBeLessThan(Date.parse(waiting.winnerDueAt));
    await platform.startService("campaigns");

    // the winner's fan-out under way (beyond the sample): kill -9 again, restart
    await waitFor(() => mailbox.messages().length >= SAMPLE + 100, { timeoutMs: 90_000, intervalMs: 20, what: "the winner's fan-out under way" });
    const midway = mailbox.messages().length;
    await killCampaigns();
    if (midway >= RECIPIENTS) console.warn("the winner's fan-out had ended before the second kill");
    await platform.startService("campaigns");

    const done = await waitForStatus(api, c.id, "SENT", 180_000);
    expect(done.winnerVariant).toBe(1);
    expect(done.stats).toMatchObject({ recipients: RECIPIENTS, sent: RECIPIENTS, failed: 0, clicked: 4 });
    expect(done.stats.variants.map((v: any) => [v.recipients, v.sent, v.clicked])).toEqual([
      [SAMPLE / 2, SAMPLE / 2, 1],
      [SAMPLE / 2, SAMPLE / 2, 3],
    ]);

    const msgs = mailbox.messages() as SinkMessage[];
    const perRecipient = countPerRecipient(msgs);
    expect(msgs).toHaveLength(RECIPIENTS);
    expect(new Set(msgs.map((m) => m.messageId)).size).toBe(RECIPIENTS);
    expect(new Set(perRecipient.keys())).toEqual(new Set(audience.map((e) => e.toLowerCase())));
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    const sampled = new Set(sample.map((m) => m.envelope.rcptTo[0]!.toLowerCase()));
    const rest = msgs.filter((m) => !sampled.has(m.envelope.rcptTo[0]!.toLowerCase()));
    expect(rest).toHaveLength(RECIPIENTS - SAMPLE);
    expect(rest.every((m) => m.subject === "Subject B")).toBe(true);
  }, 300_000);
});
