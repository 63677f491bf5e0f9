import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { DATABASE_URL, Platform, apiClient, waitFor, type ApiClient } from "@mailroom/testkit";
import { campaignBody, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";
import { seedContacts } from "./seed.js";

const A_RECIPIENTS = 1500;
/**
 * The relay answers each message after this long: with 5 connections, about 60 messages a second, so
 * A's backlog lasts as long as 3,000 at twice the speed did, for half the suite's CPU.
 */
const RELAY_DELAY_MS = 80;

/**
 * Project A's campaign has a real backlog (a relay slow enough that its 1,500 recipients take 20 s
 * and more), and project B must not wait for it: B's transactional mail goes out at once, and B's
 * campaign, started after A's, is delivered while A still has most of its way to go. A platform of
 * its own, for its slow sink and a short window (2 s of the lane, 100 recipients at the least), so
 * that a window's worth of A's mail is a second or two here too.
 */
describe("fair sharing of delivery between projects", () => {
  let mailbox: Mailbox;
  let platform: Platform;
  let a: { api: ApiClient; from: string; campaignId: string };
  let b: { api: ApiClient; from: string; projectId: string };
  const aAddresses = Array.from({ length: A_RECIPIENTS }, () => uniqueAddress("fair-a"));
  const aSet = new Set(aAddresses);
  const inSinkForA = () => mailbox.messages().filter((m) => aSet.has(m.envelope.rcptTo[0]!)).length;

  /** Sends one transactional email of B's and answers how long it took to reach the sink. */
  async function sinkLatency(send: (to: string) => Promise<{ status: number; body: unknown }>): Promise<number> {
    const to = uniqueAddress("fair-b");
    const started = Date.now();
    const res = await send(to);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await mailbox.waitFor((m) => m.envelope.rcptTo.includes(to), 60_000);
    return Date.now() - started;
  }

  beforeAll(async () => {
    mailbox = await startMailbox({ maxMessages: 10_000 });
    platform = new Platform({
      services: ["gateway", "contacts", "sending", "campaigns"],
      env: { SMTP_URL: mailbox.smtpUrl, RETURN_PATH_DOMAIN: "bounces.mailroom.test" },
      serviceEnv: { campaigns: { CAMPAIGNS_WINDOW_SECONDS: "2", CAMPAIGNS_WINDOW_MIN: "100" } },
    });
    await platform.start();
    const projectA = await platform.createProject("fair-a");
    const projectB = await platform.createProject("fair-b");
    const apiA = apiClient(platform.url, projectA.secretKey);
    a = { api: apiA, from: await verifiedSender(projectA.id, platform.env), campaignId: "" };
    b = { api: apiClient(platform.url, projectB.secretKey), from: await verifiedSender(projectB.id, platform.env), projectId: projectB.id };
    await seedContacts(DATABASE_URL, platform.prefix, projectA.id, aAddresses.map((email, n) => ({ email, subscribed: true, data: { n } })));

    mailbox.setDelay(RELAY_DELAY_MS);
    a.campaignId = (await a.api.post("/campaigns", campaignBody(a.from))).body.data.id;
    expect((await a.api.post(`/campaigns/${a.campaignId}/send`)).body.data.status).toBe("SENDING");
    await waitFor(() => inSinkForA() >= 150, { timeoutMs: 60_000, intervalMs: 50, what: "A's campaign to be delivering" });
  }, 180_000);

  afterAll(async () => {
    await platform?.destroy();
    await mailbox?.stop();
  });

  it("B's /v1/send and a campaign test copy reach the sink within seconds while A's campaign has most of its recipients to go", async () => {
    const send = (to: string) => b.api.post("/v1/send", { to, from: b.from, subject: "Your code", body: "<p>123456</p>" });
    const latencies = [await sinkLatency(send), await sinkLatency(send), await sinkLatency(send)];
    const draft = (await b.api.post("/campaigns", campaignBody(b.from))).body.data;
    latencies.push(await sinkLatency((to) => b.api.post(`/campaigns/${draft.id}/test`, { email: to })));

    // The backlog was real all along: A still had most of its recipients to go after B's last email.
    expect(inSinkForA()).toBeLessThan(A_RECIPIENTS / 2);
    for (const ms of latencies) expect(ms).toBeLessThan(3000);
  }, 120_000);

  it("B's campaign, started after A's, is delivered while A still has a third of its recipients to go", async () => {
    const bAddresses = Array.from({ length: 20 }, () => uniqueAddress("fair-bc"));
    await seedContacts(DATABASE_URL, platform.prefix, b.projectId, bAddresses.map((email) => ({ email, subscribed: true, data: { list: "news" } })));
    const bSet = new Set(bAddresses);
    // An audience of these contacts only: B's sends above made contacts too.
    const audienceFilter = { logic: "AND", groups: [{ filters: [{ field: "data.list", operator: "equals", value: "news" }] }] };
    const created = await b.api.post("/campaigns", campaignBody(b.from, { audienceType: "FILTERED", audienceFilter }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const c = created.body.data;
    const aAtStart = inSinkForA();
    expect((await b.api.post(`/campaigns/${c.id}/send`)).body.data.status).toBe("SENDING");

    await waitFor(() => mailbox.messages().filter((m) => bSet.has(m.envelope.rcptTo[0]!)).length === bAddresses.length, {
      timeoutMs: 120_000,
      intervalMs: 50,
      what: "B's campaign in the sink",
    });
    const aAtEnd = inSinkForA();
    expect(aAtStart).toBeLessThan(A_RECIPIENTS / 2);
    expect(aAtEnd).toBeLessThan((A_RECIPIENTS * 2) / 3);
    const done = await waitForStatus(b.api, c.id, "SENT", 30_000);
    expect(done.stats).toMatchObject({ recipients: bAddresses.length, sent: bAddresses.length, failed: 0 });
  }, 180_000);

  it("A's campaign, shared with B, still ends SENT with exactly one email per recipient", async () => {
    mailbox.setDelay(0);
    const done = await waitForStatus(a.api, a.campaignId, "SENT", 180_000);
    expect(done.stats).toMatchObject({ recipients: A_RECIPIENTS, sent: A_RECIPIENTS, failed: 0 });
    const perRecipient = new Map<string, Set<string>>();
    for (const m of mailbox.messages()) {
      const to = m.envelope.rcptTo[0]!;
      if (aSet.has(to)) perRecipient.set(to, (perRecipient.get(to) ?? new Set()).add(m.messageId!));
    }
    expect(perRecipient.size).toBe(A_RECIPIENTS);
    expect([...perRecipient.values()].every((ids) => ids.size === 1)).toBe(true);
    expect(mailbox.messages().filter((m) => aSet.has(m.envelope.rcptTo[0]!))).toHaveLength(A_RECIPIENTS);
  }, 240_000);
});
