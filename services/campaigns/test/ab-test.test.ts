import { beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { campaignBody, countPerRecipient, expectError, pixelOf, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";
import { seedContacts } from "./seed.js";

type Project = Awaited<ReturnType<typeof newProject>>;

const abTest = { samplePercent: 50, metric: "opened", waitMinutes: 20 };
const variants = [{ subject: "Subject A" }, { subject: "Subject B", body: "<p>Version B for {{ email }}</p>" }];
const paths = (res: { body: any }) => (res.body.details ?? []).map((d: { path: string }) => d.path);

/**
 * A/B tests (decisions.md §14) through the gateway. The platform's minute lasts a second
 * (CAMPAIGNS_AB_MINUTE_MS, test only), so `waitMinutes: 20` waits 20 s.
 */
describe("campaign A/B tests", () => {
  let p: Project;
  let from: string;

  beforeAll(async () => {
    p = await newProject("ab-tests");
    from = await verifiedSender(p.id, sharedPlatform().env);
  });

  const create = (extra: Record<string, unknown>) => p.api.post("/campaigns", campaignBody(from, extra));

  it("stores variants and the test on create and PATCH, and reads them back", async () => {
    const res = await create({ variants: [{ subject: "A", body: null }, { subject: "B", body: "<p>B</p>" }], abTest });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const c = res.body.data;
    expect(c).toMatchObject({ variants: [{ subject: "A" }, { subject: "B", body: "<p>B</p>" }], abTest, winnerVariant: null, winnerDueAt: null });
    expect(c.variants[0].body).toBeUndefined();
    expect(c.stats.variants).toEqual([]);
    expect((await p.api.get(`/campaigns/${c.id}`)).body).toEqual(c);

    const patched = await p.api.patch(`/campaigns/${c.id}`, { variants: [...variants, { subject: "C" }], abTest: { ...abTest, metric: "clicked" } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ variants: [...variants, { subject: "C" }], abTest: { metric: "clicked" } });
    // an edit that does not name them keeps them
    expect((await p.api.patch(`/campaigns/${c.id}`, { name: "Renamed" })).body.variants).toHaveLength(3);
    const plain = await p.api.patch(`/campaigns/${c.id}`, { variants: null, abTest: null });
    expect(plain.body).toMatchObject({ variants: null, abTest: null });
  });

  it("refuses a bad test at the field at fault", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ variants }, "abTest"],
      [{ abTest }, "variants"],
      [{ variants: [{ subject: "only one" }], abTest }, "variants"],
      [{ variants: Array.from({ length: 6 }, (_, i) => ({ subject: `S${i}` })), abTest }, "variants"],
      [{ variants: [{ subject: "" }, { subject: "B" }], abTest }, "variants.0.subject"],
      [{ variants: [{ subject: "A" }, { subject: "B", body: "" }], abTest }, "variants.1.body"],
      [{ variants, abTest: { ...abTest, samplePercent: 0 } }, "abTest.samplePercent"],
      [{ variants, abTest: { ...abTest, samplePercent: 51 } }, "abTest.samplePercent"],
      [{ variants, abTest: { ...abTest, waitMinutes: 4 } }, "abTest.waitMinutes"],
      [{ variants, abTest: { ...abTest, waitMinutes: 10081 } }, "abTest.waitMinutes"],
      [{ variants, abTest: { ...abTest, metric: "bounced" } }, "abTest.metric"],
    ];
    for (const [extra, path] of cases) {
      const res = await create(extra);
      expectError(res, 400, "VALIDATION_ERROR");
      expect(paths(res), JSON.stringify(extra)).toContain(path);
    }
    // a PATCH that would leave one without the other
    const c = (await create({ variants, abTest })).body.data;
    const half = await p.api.patch(`/campaigns/${c.id}`, { abTest: null });
    expectError(half, 400, "VALIDATION_ERROR");
    expect(paths(half)).toEqual(["abTest"]);
    // a variant body over 1 MB is a 413 at its field
    const big = await create({ variants: [{ subject: "A" }, { subject: "B", body: "x".repeat(1024 * 1024 + 1) }], abTest });
    expectError(big, 413, "PAYLOAD_TOO_LARGE");
    expect(paths(big)).toEqual(["variants.1.body"]);
  });

  it("sends a test copy of one variant, and refuses a variant the campaign lacks", async () => {
    const c = (await create({ variants, abTest })).body.data;
    const to = uniqueAddress("abtest");
    expect((await p.api.post(`/campaigns/${c.id}/test`, { email: to, variant: 1 })).status).toBe(200);
    const [m] = await waitFor(async () => {
      const msgs = await sinkMessagesTo(sharedPlatform().mailboxUrl, [to]);
      return msgs.length ? msgs : null;
    }, { what: "the variant's test copy" });
    expect(m!.subject).toBe("Subject B");
    expect(m!.html).toContain("Version B for");
    const bad = await p.api.post(`/campaigns/${c.id}/test`, { email: to, variant: 2 });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(paths(bad)).toEqual(["variant"]);
  });

  it("splits the sample evenly, waits, picks the variant with the higher open rate and sends it to the rest, once each", async () => {
    const audience = Array.from({ length: 40 }, () => uniqueAddress("ab"));
    const unsubscribed = [uniqueAddress("ab-no"), uniqueAddress("ab-no")];
    await seedContacts(DATABASE_URL, sharedPlatform().prefix, p.id, [
      ...audience.map((email) => ({ email, subscribed: true })),
      ...unsubscribed.map((email) => ({ email, subscribed: false })),
    ]);
    const c = (await create({ subject: "Main", body: "<p>Main body</p>", variants, abTest })).body.data;
    expect((await p.api.post(`/campaigns/${c.id}/send`)).body.data.status).toBe("SENDING");

    // The sample: 50 % of 40, ten per variant, and nothing more until the wait is over.
    const sample = await waitFor(async () => {
      const msgs = await sinkMessagesTo(sharedPlatform().mailboxUrl, audience);
      return msgs.length >= 20 ? msgs : null;
    }, { what: "the sample's 20 emails", timeoutMs: 30_000 });
    expect(sample).toHaveLength(20);
    const a = sample.filter((m) => m.subject === "Subject A");
    const b = sample.filter((m) => m.subject === "Subject B");
    expect([a.length, b.length]).toEqual([10, 10]);
    expect(a.every((m) => m.html!.includes("Main body"))).toBe(true);
    expect(b.every((m) => m.html!.includes("Version B for"))).toBe(true);
    const waiting = await waitFor(async () => {
      const got = (await p.api.get(`/campaigns/${c.id}`)).body;
      return got.winnerDueAt ? got : null;
    }, { what: "the wait to start" });
    expect(waiting).toMatchObject({ status: "SENDING", winnerVariant: null, stats: { recipients: 40 } });
    expect(waiting.stats.variants.map((v: any) => [v.index, v.recipients])).toEqual([[0, 10], [1, 10]]);

    // Opens: 2 of A's ten, 6 of B's ten (B wins on rate), counted before the wait ends.
    for (const m of [...a.slice(0, 2), ...b.slice(0, 6)]) expect((await p.anon.get(pixelOf(m))).status).toBe(200);
    const counted = await waitFor(async () => {
      const got = (await p.api.get(`/campaigns/${c.id}`)).body;
      return got.stats.variants[0].opened === 2 && got.stats.variants[1].opened === 6 ? got : null;
    }, { what: "the opens counted per variant" });
    expect(counted.winnerVariant, "opens must be counted before the wait ends; lengthen waitMinutes").toBeNull();

    const done = await waitForStatus(p.api, c.id, "SENT", 90_000);
    expect(done.winnerVariant).toBe(1);
    expect(done.stats).toMatchObject({ recipients: 40, sent: 40, failed: 0, opened: 8 });
    expect(done.stats.variants).toEqual([
      { index: 0, recipients: 10, sent: 10, delivered: 10, opened: 2, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0 },
      { index: 1, recipients: 10, sent: 10, delivered: 10, opened: 6, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0 },
    ]);
    const all = await waitFor(async () => {
      const msgs = await sinkMessagesTo(sharedPlatform().mailboxUrl, [...audience, ...unsubscribed]);
      return msgs.length >= 40 ? msgs : null;
    }, { what: "the rest's emails" });
    const perRecipient = countPerRecipient(all);
    expect(all).toHaveLength(40);
    expect(new Set(perRecipient.keys())).toEqual(new Set(audience.map((e) => e.toLowerCase())));
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    const sampled = new Set(sample.map((m) => m.envelope.rcptTo[0]!.toLowerCase()));
    const rest = all.filter((m) => !sampled.has(m.envelope.rcptTo[0]!.toLowerCase()));
    expect(rest).toHaveLength(20);
    expect(rest.every((m) => m.subject === "Subject B" && m.html!.includes("Version B for"))).toBe(true);
  }, 150_000);
});
