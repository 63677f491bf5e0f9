import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox, type StoredMessage } from "@mailroom/devmailbox";
import { Platform, REPO_ROOT, apiClient, setProjectClock, startDnsServer, waitFor, type ApiClient, type DnsServer } from "@mailroom/testkit";

/**
 * Mailbox providers and their limits (decisions.md §18), through a platform of its own: its own DNS
 * server gives the recipient domains provider-like MX records, its own sink can answer 4xx, and its
 * own DELIVERY_LIMITS. Rates are measured on the sink's receive timestamps, over the steady part of a
 * run (past its first 30%, while the API still queues the burst), so a loaded machine's delays in
 * the pipeline do not count against them.
 */
const SLOW = { domain: "slow-recipients.test", mx: "mx1.slowprov.net", provider: "slowprov.net", perMinute: 300 };
const FAST = { domain: "fast-recipients.test", mx: "in.fastprov.net", provider: "fastprov.net", perMinute: 6000 };
const DEFERRING = { domain: "deferring-recipients.test", mx: "mx.deferprov.net", provider: "deferprov.net", perMinute: 1200 };
const WARM = { domain: "warm-recipients.test", mx: "mx.warmprov.net", provider: "warmprov.net" };
const LIMITS = {
  [SLOW.provider]: { connections: 4, perMinute: SLOW.perMinute },
  [FAST.provider]: { connections: 8, perMinute: FAST.perMinute },
  [DEFERRING.provider]: { connections: 4, perMinute: DEFERRING.perMinute },
};

let mailbox: Mailbox;
let dns: DnsServer;
let platform: Platform;
let api: ApiClient;
let projectId: string;
const from = "news@providers-sender.test";

beforeAll(async () => {
  mailbox = await startMailbox({ maxMessages: 5000 });
  dns = await startDnsServer({
    zones: Object.fromEntries([SLOW, FAST, DEFERRING, WARM].map((p) => [p.domain, { MX: [{ exchange: p.mx, priority: 10 }] }])),
  });
  platform = new Platform({
    services: ["gateway", "contacts", "sending", "campaigns"],
    env: { SMTP_URL: mailbox.smtpUrl, DNS_SERVER: dns.address, DELIVERY_LIMITS: JSON.stringify(LIMITS), TRANSACTIONAL_DELIVERY_CONCURRENCY: "32" },
  });
  await platform.start();
  const project = await platform.createProject("providers");
  projectId = project.id;
  api = apiClient(platform.url, project.secretKey);
  await platform.verifyDomain(projectId, "providers-sender.test");
}, 120_000);
afterAll(async () => {
  mailbox?.failNext(0, 451, "");
  await platform?.destroy();
  await dns?.stop();
  await mailbox?.stop();
});

/** Sends to `count` addresses of `domain` in requests of 50 (one job each), all at once. */
async function burst(domain: string, count: number, tag: string, sender = from): Promise<string[]> {
  const to = Array.from({ length: count }, (_, i) => `${tag}${i}@${domain}`);
  const chunks = Array.from({ length: Math.ceil(count / 50) }, (_, i) => to.slice(i * 50, i * 50 + 50));
  await Promise.all(
    chunks.map(async (chunk) => {
      const res = await api.post("/v1/send", { to: chunk, from: sender, subject: tag, body: `<p>${tag}</p>` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }),
  );
  return to;
}

const arrivals = (messages: StoredMessage[]) => messages.map((m) => Date.parse(m.receivedAt)).sort((a, b) => a - b);

/**
 * Messages a minute over `times` (sorted), in the steady part of the run: past its first `from` share,
 * when the API may still be queueing the burst, and past the bucket's first quarter second of burst.
 */
function ratePerMinute(times: number[], perMinute: number, from = 0): number {
  const skip = Math.max(Math.ceil(perMinute / 60 / 4), Math.floor(times.length * from));
  const measured = times.slice(skip);
  return ((measured.length - 1) / (measured.at(-1)! - measured[0]!)) * 60_000;
}

async function metrics(): Promise<string> {
  const opsPort = platform.procs.get("sending")![0]!.opsPort;
  return (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
}

function metric(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && labels.split(",").every((p) => l.includes(p)));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

/**
 * A campaign to `count` new contacts at `domain`, sent from `<tag>-campaign.test` (verified by the
 * caller) with the subject "<tag> campaign": its id.
 */
async function campaignTo(campaignApi: ApiClient, domain: string, count: number, tag: string): Promise<string> {
  for (let i = 0; i < count; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, k) => campaignApi.post("/contacts", { email: `${tag}${i + k}@${domain}`, subscribed: true })));
  }
  const created = await campaignApi.post("/campaigns", { name: tag, subject: `${tag} campaign`, body: "<p>hi</p>", from: `news@${tag}-campaign.test`, audienceType: "ALL" });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.data.id as string;
  expect((await campaignApi.post(`/campaigns/${id}/send`)).status).toBe(200);
  return id;
}

/** The campaign as GET /campaigns/{id} answers it, once `ok` holds of it. */
async function campaignWhen(campaignApi: ApiClient, id: string, ok: (c: any) => boolean, what: string) {
  return waitFor(
    async () => {
      const { body } = await campaignApi.get(`/campaigns/${id}`);
      const c = body.data ?? body;
      return ok(c) ? c : null;
    },
    { timeoutMs: 30_000, intervalMs: 200, what },
  );
}

describe("mailbox providers and their limits", () => {
  it("holds each provider to its own rate, and the faster one finishes first", async () => {
    // 200 at 300 a minute take 40 s; 600 at 6,000 a minute take 6 s at the limit, and 40 s only at
    // 15 a second, the least the fast one must do below (a loaded 2-core machine running the whole
    // suite did 33). Fewer fast ones measure a shorter span, which one stall of the loaded machine's
    // sink stretches past the 5% bound.
    await Promise.all([burst(SLOW.domain, 200, "slow"), burst(FAST.domain, 600, "fast")]);
    const slow = arrivals(await mailbox.waitFor((m) => m.subject === "slow", 90_000, 200));
    const fast = arrivals(await mailbox.waitFor((m) => m.subject === "fast", 60_000, 600));

    const slowRate = ratePerMinute(slow, SLOW.perMinute, 0.3);
    const fastRate = ratePerMinute(fast, FAST.perMinute, 0.3);
    // Neither goes over its limit. The fast one's limit (100 a second) is more than a loaded 2-core
    // machine running the whole suite delivers (33 to 61), so how near it comes is the providers
    // benchmark's figure; here it only has to outrun the slow one's limit several times over, which
    // shows the slow one is held by its limit and not by the machine, so it must come near it.
    expect(slowRate, `slow: ${slowRate.toFixed(0)}/min`).toBeLessThanOrEqual(SLOW.perMinute * 1.05);
    expect(fastRate, `fast: ${fastRate.toFixed(0)}/min`).toBeLessThanOrEqual(FAST.perMinute * 1.05);
    expect(fastRate, `fast: ${fastRate.toFixed(0)}/min`).toBeGreaterThan(SLOW.perMinute * 3);
    expect(slowRate, `slow: ${slowRate.toFixed(0)}/min`).toBeGreaterThanOrEqual(SLOW.perMinute * 0.9);
    expect(fast.at(-1)!).toBeLessThan(slow.at(-1)!);

    const text = await metrics();
    expect(metric(text, "mailroom_delivery_provider_throttled_total", `provider="${SLOW.provider}",reason="rate"`)).toBeGreaterThan(0);
    expect(metric(text, "mailroom_delivery_provider_waiting", `provider="${SLOW.provider}"`)).toBe(0);
  }, 150_000);

  it("slows a provider that answers 451 to a run of messages, and its mail still all arrives", async () => {
    mailbox.failNext(6, 451, "4.7.0 Try again later");
    await burst(DEFERRING.domain, 100, "deferring");
    const all = await mailbox.waitFor((m) => m.subject === "deferring", 60_000, 100);
    expect(new Set(all.flatMap((m) => m.envelope.rcptTo)).size).toBe(100);
    const refused = mailbox.refusals().filter((r) => r.to.endsWith(`@${DEFERRING.domain}`));
    expect(refused).toHaveLength(6);

    // after the run, the provider got half its rate (growing back a tenth a minute: a few % in the window)
    const lastRefusal = Math.max(...refused.map((r) => r.at.getTime()));
    const after = arrivals(all).filter((t) => t > lastRefusal);
    const rate = ratePerMinute(after, DEFERRING.perMinute / 2);
    expect(rate, `${rate.toFixed(0)}/min after the 451s`).toBeLessThan(DEFERRING.perMinute * 0.7);
    const factor = metric(await metrics(), "mailroom_delivery_provider_rate_factor", `provider="${DEFERRING.provider}"`);
    expect(factor).toBeGreaterThanOrEqual(0.5);
    expect(factor).toBeLessThan(0.7);
  }, 90_000);

  it("caps a domain warming up at 50 per provider on its first day; the rest waits for the next day", async () => {
    const sender = "hello@warm-sender.test";
    await platform.verifyDomain(projectId, "warm-sender.test");
    const { body: domains } = await api.get("/domains");
    const domain = domains.data.find((d: { domain: string }) => d.domain === "warm-sender.test");
    const patched = await api.patch(`/domains/${domain.id}`, { warmup: true });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.warmup).toBe(true);

    // the project's day ends in 20 s: time for 50 to go, then the rest waits for midnight
    const midnight = Date.parse("2031-05-06T00:00:00.000Z");
    setProjectClock(platform.env, projectId, new Date(midnight - 20_000));
    const offset = midnight - 20_000 - Date.now();
    await burst(WARM.domain, 60, "warm", sender);

    const firstDay = await mailbox.waitFor((m) => m.subject === "warm", 30_000, 50);
    // the real signal that the other ten were held, not a sleep: the sending service counted them
    await waitFor(async () => metric(await metrics(), "mailroom_delivery_provider_throttled_total", 'provider="other",reason="warmup"') >= 10 || null, {
      timeoutMs: 15_000,
      what: "ten emails held by the warm-up cap",
    });
    const beforeMidnight = mailbox.messages().filter((m) => m.subject === "warm" && Date.parse(m.receivedAt) + offset < midnight);
    expect(firstDay.length).toBe(50);
    expect(beforeMidnight.length).toBe(50);

    const all = await mailbox.waitFor((m) => m.subject === "warm", 60_000, 60);
    const late = all.filter((m) => Date.parse(m.receivedAt) + offset >= midnight);
    expect(late).toHaveLength(10);
    expect(new Set(all.flatMap((m) => m.envelope.rcptTo)).size).toBe(60);
  }, 90_000);

  it("shows a campaign's recipients held by the warm-up cap as throttled, per provider", async () => {
    const project = await platform.createProject("warm-campaign");
    const campaignApi = apiClient(platform.url, project.secretKey);
    // the middle of the project's day: none of its held mail comes due during the test
    setProjectClock(platform.env, project.id, new Date("2031-06-01T12:00:00.000Z"));
    await platform.verifyDomain(project.id, "warm-campaign.test");
    const { body: domains } = await campaignApi.get("/domains");
    const patched = await campaignApi.patch(`/domains/${domains.data[0].id}`, { warmup: true });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const id = await campaignTo(campaignApi, WARM.domain, 60, "warm");

    await mailbox.waitFor((m) => m.subject === "warm campaign", 30_000, 50);
    const throttled = await campaignWhen(campaignApi, id, (c) => c.stats.throttled?.[WARM.provider] === 10, "the campaign to show ten recipients throttled");
    expect(throttled.status).toBe("SENDING");
    expect(throttled.stats.throttled).toEqual({ [WARM.provider]: 10 });
    expect(mailbox.messages().filter((m) => m.subject === "warm campaign")).toHaveLength(50);
  }, 90_000);

  it("shows a campaign's emails waiting at a provider's rate as throttled, and none once it is sent", async () => {
    const project = await platform.createProject("rate-campaign");
    const campaignApi = apiClient(platform.url, project.secretKey);
    await platform.verifyDomain(project.id, "rate-campaign.test");
    // 40 at 300 a minute: about 8 s at the slow provider's gate
    const id = await campaignTo(campaignApi, SLOW.domain, 40, "rate");

    const waiting = await campaignWhen(campaignApi, id, (c) => (c.stats.throttled?.[SLOW.provider] ?? 0) > 0, "the campaign to show recipients waiting for the slow provider");
    expect(waiting.status).toBe("SENDING");
    expect(Object.keys(waiting.stats.throttled)).toEqual([SLOW.provider]);
    expect(waiting.stats.throttled[SLOW.provider]).toBeLessThanOrEqual(40);

    await mailbox.waitFor((m) => m.subject === "rate campaign", 60_000, 40);
    const sent = await campaignWhen(campaignApi, id, (c) => c.status === "SENT", "the campaign to be SENT");
    expect(sent.stats.throttled).toBeUndefined();
    expect(sent.stats.sent).toBe(40);
  }, 90_000);

  it("the domains API refuses a bad warmup value with the Error object and changes nothing", async () => {
    const { body: before } = await api.get("/domains");
    const domain = before.data[0];
    for (const warmup of ["yes", 1, null]) {
      const res = await api.patch(`/domains/${domain.id}`, { warmup });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, error: "VALIDATION_ERROR" });
    }
    const created = await api.post("/domains", { domain: "never-made.test", warmup: "on" });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 400, error: "VALIDATION_ERROR" });
    const { body: after } = await api.get("/domains");
    expect(after).toEqual(before);
  });

  it("refuses to start with bad DELIVERY_LIMITS, saying what is wrong", () => {
    for (const [limits, says] of [
      ['{"google":{"perMinute":-5}}', /DELIVERY_LIMITS\.google\.perMinute/],
      ["{google: 1}", /DELIVERY_LIMITS: must be JSON/],
      ['{"Gmail!":{"perMinute":5}}', /DELIVERY_LIMITS.*must be default, google/],
    ] as const) {
      // the service's own entry point with the platform's environment: it exits before connecting to anything
      const r = spawnSync(process.execPath, [join(REPO_ROOT, "services/sending/dist/main.js")], {
        env: { ...process.env, ...platform.env, DELIVERY_LIMITS: limits, OPS_PORT: "0" },
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/sending failed to start: Invalid configuration/);
      expect(r.stderr).toMatch(says);
    }
  });
});
