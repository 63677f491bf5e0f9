import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STATS_POINTS } from "@mailroom/contracts";
import { readDeadLetters, waitFor } from "@mailroom/testkit";
import { ZERO, analyticsFixture, envelope, totals, type Counts } from "./analytics-helpers.js";
import { RPD, arf, deliver, dsn } from "./feedback-helpers.js";
import { uniqueAddress } from "./helpers.js";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const path = (url: string) => new URL(url).pathname;
const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
const pixelOf = (html: string) => /src="([^"]+\/t\/o\/[A-Za-z0-9_-]+)"/.exec(html)![1]!;
const HOUR = 3_600_000;
const qs = (o: Record<string, string>) => new URLSearchParams(o).toString();

describe("GET /stats and the email timeline, from the sending-email-events consumer", () => {
  let t: Awaited<ReturnType<typeof analyticsFixture>>;
  beforeAll(async () => {
    t = await analyticsFixture();
  });
  afterAll(() => t?.close());

  it("counts every kind of email event into the day and hour series, and lists each email's timeline in order", async () => {
    const p = await t.project("stats");
    const from = `news@${p.domain}`;
    const start = new Date();

    // A: delivered, opened twice, clicked twice (first open and first click count)
    const a = await t.send(p.api, from, uniqueAddress("a"), '<p><a href="https://shop.example/sale">sale</a></p>');
    await deliver(t.f.inboundPort, [a.verp], dsn({ emailId: a.emailId, verp: a.verp, to: a.to, action: "delivered", status: "2.0.0" }));
    for (let i = 0; i < 2; i++) expect((await p.anon.get(path(pixelOf(a.html)))).status).toBe(200);
    const click = hrefs(a.html).find((h) => h.includes("/t/c/"))!;
    for (let i = 0; i < 2; i++) expect((await p.anon.get(path(click))).headers.get("location")).toBe("https://shop.example/sale");
    // B: a permanent bounce; C: a transient one (shown, not counted), then a complaint
    const b = await t.send(p.api, from, uniqueAddress("b"));
    await deliver(t.f.inboundPort, [b.verp], dsn({ emailId: b.emailId, verp: b.verp, to: b.to, action: "failed", status: "5.1.1" }));
    const c = await t.send(p.api, from, uniqueAddress("c"));
    await deliver(t.f.inboundPort, [c.verp], dsn({ emailId: c.emailId, verp: c.verp, to: c.to, action: "delayed", status: "4.4.7" }));
    await deliver(t.f.inboundPort, [`fbl@${RPD}`], arf({ emailId: c.emailId, to: c.to, mailFrom: c.verp }));
    // D: its recipient unsubscribes through the email's link
    const dTo = uniqueAddress("d");
    expect((await p.api.post("/contacts", { email: dTo, subscribed: true })).status).toBe(201);
    const d = await t.send(p.api, from, dTo, '<a href="{{ unsubscribeUrl }}">unsubscribe</a>');
    expect((await p.anon.post(path(hrefs(d.html).find((h) => h.includes("/u/"))!), "", FORM)).status).toBe(200);
    // E: to B's bounced address: FAILED unsent
    const e = await p.api.post("/v1/send", { to: b.to, from, subject: "Again", body: "<p>x</p>" });
    const eId: string = e.body.data.emails[0].email;

    const expected: Counts = { sent: 4, delivered: 1, opened: 1, clicked: 1, bounced: 1, complained: 1, unsubscribed: 1, failed: 1 };
    const stats = (o: Record<string, string>) => p.api.get(`/stats?${qs(o)}`);
    // the engagement recorder writes behind the redirect, and the unsubscribe goes through contacts
    await waitFor(async () => {
      await t.counted();
      const r = await stats({ from: start.toISOString(), to: new Date().toISOString(), interval: "day" });
      return JSON.stringify(totals(r.body.series)) === JSON.stringify(expected) ? true : null;
    }, { timeoutMs: 20_000, intervalMs: 250, what: "every event counted" });

    // three hours before the first send up to now: every hour a point, the empty ones zeros
    const now = new Date();
    const hours = await stats({ from: new Date(start.getTime() - 3 * HOUR).toISOString(), to: now.toISOString(), interval: "hour" });
    expect(hours.status).toBe(200);
    const firstHour = Math.floor((start.getTime() - 3 * HOUR) / HOUR) * HOUR;
    expect(hours.body.series.map((s: { at: string }) => s.at)).toEqual(
      Array.from({ length: (Math.floor(now.getTime() / HOUR) * HOUR - firstHour) / HOUR + 1 }, (_, i) => new Date(firstHour + i * HOUR).toISOString()),
    );
    expect(hours.body.series.slice(0, 3)).toEqual(hours.body.series.slice(0, 3).map((s: { at: string }) => ({ at: s.at, ...ZERO })));
    expect(totals(hours.body.series)).toEqual(expected);
    const days = await stats({ from: start.toISOString(), to: now.toISOString() });
    expect(days.body.series[0].at).toBe(`${start.toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(totals(days.body.series)).toEqual(expected);
    // another project's counts are its own
    const other = await t.f.project("stats-other");
    const theirs = await other.api.get(`/stats?${qs({ from: start.toISOString(), to: now.toISOString() })}`);
    expect(totals(theirs.body.series)).toEqual(ZERO);

    const timeline = async (id: string) => {
      const r = await p.api.get(`/emails/${id}/events`);
      expect(r.status).toBe(200);
      return r.body.data as Array<{ id: string; emailId: string; type: string; occurredAt: string; details: Record<string, unknown> }>;
    };
    const ta = await timeline(a.emailId);
    expect(ta.map((x) => x.type)).toEqual(["QUEUED", "SENT", "DELIVERED", "OPENED", "CLICKED"]);
    expect(ta[0]).toEqual({ id: a.emailId, emailId: a.emailId, type: "QUEUED", occurredAt: a.record.createdAt, details: {} });
    expect(ta[1]!.occurredAt).toBe(a.record.sentAt);
    expect(ta[4]!.details).toEqual({ url: "https://shop.example/sale" });
    expect([...ta.map((x) => x.occurredAt)].sort()).toEqual(ta.map((x) => x.occurredAt));
    const tb = await timeline(b.emailId);
    expect(tb.map((x) => x.type)).toEqual(["QUEUED", "SENT", "BOUNCED"]);
    expect(tb[2]!.details).toEqual({ bounceType: "Permanent", diagnostic: "smtp; 550 5.1.1 User unknown" });
    const tc = await timeline(c.emailId);
    expect(tc.map((x) => x.type)).toEqual(["QUEUED", "SENT", "BOUNCED", "COMPLAINED"]);
    expect(tc[2]!.details).toEqual({ bounceType: "Transient", diagnostic: "smtp; 250 2.0.0 Ok" });
    expect((await timeline(d.emailId)).map((x) => x.type)).toEqual(["QUEUED", "SENT", "UNSUBSCRIBED"]);
    const te = await timeline(eId);
    expect(te.map((x) => x.type)).toEqual(["QUEUED", "FAILED"]);
    expect(String(te[1]!.details.reason)).toMatch(/bounce/i);
    // the list filters agree with the timelines
    expect((await p.api.get("/emails?status=FAILED")).body.data.map((x: { id: string }) => x.id)).toEqual([eId]);
    expect((await p.api.get(`/emails?status=BOUNCED&to=${encodeURIComponent(b.to.toUpperCase())}`)).body.data.map((x: { id: string }) => x.id)).toEqual([b.emailId]);

    // another project's email, an unknown id and a malformed one are 404 with the Error object
    for (const [client, id] of [[other.api, a.emailId], [p.api, randomUUID()], [p.api, "nope'%20or%201=1"]] as const) {
      const r = await client.get(`/emails/${id}/events`);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 404, error: "NOT_FOUND" });
      expect(typeof r.body.time).toBe("number");
    }
  });

  it("filters by campaign, and a campaign id that is unknown, foreign or malformed counts nothing", async () => {
    const p = await t.project("stats-campaign");
    const other = await t.project("stats-campaign-other");
    const campaignId = randomUUID();
    const start = new Date().toISOString();
    const enqueue = async (projectId: string, domain: string, to: string) => {
      const r = await t.rpc("sending.enqueue", {
        projectId, source: { type: "CAMPAIGN", campaignId }, idempotencyKey: `c:${to}`, to, contactId: null,
        from: `news@${domain}`, fromName: "News", subject: "Hi", body: "<p>Hi</p>", data: {}, marketing: true,
      });
      expect(r.ok).toBe(true);
      return r.result.emailId as string;
    };
    const ids = [await enqueue(p.id, p.domain, uniqueAddress("c1")), await enqueue(p.id, p.domain, uniqueAddress("c2"))];
    // the same campaign id in another project never counts here
    await enqueue(other.id, other.domain, uniqueAddress("c3"));
    await t.send(p.api, `news@${p.domain}`, uniqueAddress("plain"));
    for (const id of ids) await waitFor(async () => ((await p.api.get(`/emails/${id}`)).body.status === "SENT" ? true : null), { what: "campaign mail SENT" });
    const series = async (extra: Record<string, string> = {}) => {
      await t.counted();
      const r = await p.api.get(`/stats?${qs({ from: start, to: new Date().toISOString(), interval: "hour", ...extra })}`);
      expect(r.status).toBe(200);
      return totals(r.body.series);
    };
    await waitFor(async () => ((await series()).sent === 3 ? true : null), { what: "3 sends counted" });
    expect(await series({ campaignId })).toEqual({ ...ZERO, sent: 2 });
    expect(await series({ campaignId: randomUUID() })).toEqual(ZERO);
    expect(await series({ campaignId: "not-an-id" })).toEqual(ZERO);
    expect(await series({ campaignId: "%' or 1=1 --" })).toEqual(ZERO);
  });

  it("refuses a backwards range, one of more than MAX_STATS_POINTS points and malformed parameters", async () => {
    const p = await t.f.project("stats-range");
    const get = (o: Record<string, string>) => p.api.get(`/stats?${qs(o)}`);
    const refused = async (o: Record<string, string>, path: string, message?: RegExp) => {
      const r = await get(o);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 400, error: "VALIDATION_ERROR" });
      expect(typeof r.body.time).toBe("number");
      expect(r.body.details.map((x: { path: string }) => x.path)).toContain(`query.${path}`);
      if (message) expect(r.body.message).toMatch(message);
      expect(JSON.stringify(r.body)).not.toMatch(/at .*\.js/);
    };
    await refused({ from: "2024-03-02T00:00:00Z", to: "2024-03-01T00:00:00Z" }, "from", /after/);
    // a thousand hours fit, one more does not
    const from = "2024-01-01T00:00:00.000Z";
    const last = new Date(Date.parse(from) + (MAX_STATS_POINTS - 1) * HOUR).toISOString();
    const fits = await get({ from, to: last, interval: "hour" });
    expect(fits.status).toBe(200);
    expect(fits.body.series).toHaveLength(MAX_STATS_POINTS);
    expect(fits.body.series.at(-1)).toEqual({ at: last, ...ZERO });
    await refused({ from, to: new Date(Date.parse(last) + HOUR).toISOString(), interval: "hour" }, "to", new RegExp(`more than ${MAX_STATS_POINTS}`));
    await refused({ from: "1970-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z", interval: "day" }, "to");
    await refused({ from: "yesterday", to: "2024-03-01T00:00:00Z" }, "from");
    await refused({ from: "2024-03-01T00:00:00Z", to: "2024-03-01T00:00:00Z", interval: "week" }, "interval");
    await refused({ to: "2024-03-01T00:00:00Z" }, "from");
    await refused({ from: "2024-03-01T00:00:00Z", to: `2024-03-01T00:00:00Z${"9".repeat(5000)}` }, "to");
    // a single instant is one point; offsets are read as the instants they name
    const one = await get({ from: "2024-03-01T01:30:00+02:00", to: "2024-02-29T23:45:00Z", interval: "hour" });
    expect(one.body.series).toEqual([{ at: "2024-02-29T23:00:00.000Z", ...ZERO }]);
  });

  it("puts events in the UTC hour and day of their time, and counts an event delivered again (or republished) once", async () => {
    const p = await t.f.project("stats-exactly-once");
    const other = await t.f.project("stats-exactly-once-other");
    const emailId = randomUUID();
    const campaignId = randomUUID();
    const sent = envelope({ projectId: p.id, emailId, campaignId, name: "email.sent", at: "2023-06-01T10:15:00.000Z" });
    const events = [
      sent,
      envelope({ projectId: p.id, emailId, campaignId, name: "email.open", at: "2023-06-01T11:59:59.999Z" }),
      // a second open event of the same email (another id): the email was opened once
      envelope({ projectId: p.id, emailId, campaignId, name: "email.open", at: "2023-06-01T12:30:00.000Z" }),
      envelope({ projectId: p.id, emailId, campaignId, name: "email.delivery", at: "2023-06-02T00:00:00.000Z" }),
      envelope({ projectId: p.id, emailId: randomUUID(), name: "email.bounce", at: "2023-06-02T05:00:00.000Z", data: { bounceType: "Transient", transientBounce: true } }),
    ];
    for (const e of events) await t.publish(e, p.id);
    // the same envelope under a new Nats-Msg-Id (JetStream cannot tell it is a copy), and poison beside it
    await t.publish(sent, p.id);
    await t.publish("{not json", p.id);
    await t.publish(JSON.stringify({ id: 1, name: "email.sent" }), p.id);
    // another project's event never counts here
    await t.publish(envelope({ projectId: other.id, emailId: randomUUID(), name: "email.sent", at: "2023-06-01T10:20:00.000Z" }), other.id);

    const range = { from: "2023-06-01T09:00:00Z", to: "2023-06-02T05:59:59Z" };
    const check = async () => {
      await t.counted();
      const hours = (await p.api.get(`/stats?${qs({ ...range, interval: "hour" })}`)).body.series as Array<Counts & { at: string }>;
      expect(hours).toHaveLength(21);
      const nonZero = hours.filter((h) => JSON.stringify({ ...h, at: undefined }) !== JSON.stringify({ ...ZERO, at: undefined }));
      expect(nonZero).toEqual([
        { ...ZERO, at: "2023-06-01T10:00:00.000Z", sent: 1 },
        { ...ZERO, at: "2023-06-01T11:00:00.000Z", opened: 1 },
        { ...ZERO, at: "2023-06-02T00:00:00.000Z", delivered: 1 },
      ]);
      const days = (await p.api.get(`/stats?${qs({ ...range, interval: "day" })}`)).body.series;
      expect(days).toEqual([
        { ...ZERO, at: "2023-06-01T00:00:00.000Z", sent: 1, opened: 1 },
        { ...ZERO, at: "2023-06-02T00:00:00.000Z", delivered: 1 },
      ]);
      const byCampaign = (await p.api.get(`/stats?${qs({ ...range, interval: "day", campaignId })}`)).body.series;
      expect(totals(byCampaign)).toEqual({ ...ZERO, sent: 1, opened: 1, delivered: 1 });
    };
    await check();
    // every envelope once more, as a redelivered batch would bring them: nothing counts twice
    for (const e of events) await t.publish(e, p.id);
    await check();
    const theirs = await other.api.get(`/stats?${qs({ ...range, interval: "day" })}`);
    expect(totals(theirs.body.series)).toEqual({ ...ZERO, sent: 1 });
    // the poison went to the dead-letter subject with its reason, and held nothing back
    const dead = await readDeadLetters(process.env.NATS_URL ?? "nats://127.0.0.1:4222", t.f.platform.prefix, t.names.consumers.sendingEmailEvents);
    expect(dead).toHaveLength(2);
    expect(dead.filter((d) => /not an event envelope|not JSON/.test(d.reason))).toHaveLength(2);
  });
});
