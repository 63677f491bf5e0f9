import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireNames } from "@mailroom/contracts";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { newProject, openDrain, sharedPlatform, waitFor, type Drain } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, header, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

let drain: Drain;
/** The campaigns service's own database: when a campaign started is not in the API. */
let campaignsDb: postgres.Sql;
beforeAll(async () => {
  drain = await openDrain();
  const { env, prefix } = sharedPlatform();
  campaignsDb = postgres(serviceDatabaseUrl(env.DATABASE_URL!, prefix, "campaigns"), { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await drain?.close();
  await campaignsDb?.end({ timeout: 1 });
});

/** A project with its own sender and contacts, so what reaches the sink can be attributed to it. */
async function projectWithContacts(name: string, subscribed: number, unsubscribed: number) {
  const p = await newProject(name);
  const from = await verifiedSender(p.id, sharedPlatform().env);
  const yes = Array.from({ length: subscribed }, (_, i) => ({ email: uniqueAddress("yes"), subscribed: true, data: { firstName: `Ann${i}`, plan: "pro" } }));
  const no = Array.from({ length: unsubscribed }, () => ({ email: uniqueAddress("no"), subscribed: false, data: { firstName: "Nope" } }));
  await createContacts(p.api, [...yes, ...no]);
  return { p, from, yes: yes.map((c) => c.email), no: no.map((c) => c.email) };
}

describe("campaign delivery into the SMTP sink", () => {
  const mailbox = () => sharedPlatform().mailboxUrl;

  it("ALL: every subscribed contact gets exactly one rendered marketing email, unsubscribed ones nothing", async () => {
    const { p, from, yes, no } = await projectWithContacts("all", 6, 3);
    const c = (await p.api.post("/campaigns", campaignBody(from, { fromName: "News Desk" }))).body.data;
    const sent = await p.api.post(`/campaigns/${c.id}/send`);
    expect(sent.body).toMatchObject({ success: true, data: { status: "SENDING" } });

    const done = await waitForStatus(p.api, c.id, "SENT");
    expect(done.stats).toMatchObject({ recipients: 6, sent: 6, delivered: 6, failed: 0 });
    const msgs = await sinkMessagesTo(mailbox(), [...yes, ...no]);
    expect(msgs).toHaveLength(6);
    expect(new Set(msgs.map((m) => m.envelope.rcptTo[0]!.toLowerCase()))).toEqual(new Set(yes.map((e) => e.toLowerCase())));
    expect(new Set(msgs.map((m) => m.messageId)).size).toBe(6);

    const first = msgs.find((m) => m.to.includes(yes[0]!))!;
    expect(first.subject).toBe("Hello Ann0");
    expect(first.html).toContain("Hi Ann0, plan pro.");
    expect(header(first, "list-unsubscribe")).toMatch(/^<http.*\/u\/.+>$/);
    expect(header(first, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(header(first, "precedence")).toBe("bulk");
    expect(header(first, "from")).toContain("News Desk");
  });

  // Its waits alone (2.5 s to the start, up to 10 s to the first email, 20 s to SENT) add up to more
  // than the suite's default 30 s, which a loaded CI machine reached.
  it("a scheduled campaign starts on time; a cancelled one never sends", { timeout: 60_000 }, async () => {
    const [a, b] = await Promise.all([projectWithContacts("scheduled", 3, 0), projectWithContacts("cancelled", 3, 0)]);
    const ca = (await a.p.api.post("/campaigns", campaignBody(a.from))).body.data;
    const cb = (await b.p.api.post("/campaigns", campaignBody(b.from))).body.data;
    const at = new Date(Date.now() + 2500);
    const sa = await a.p.api.post(`/campaigns/${ca.id}/send`, { scheduledFor: at.toISOString() });
    const sb = await b.p.api.post(`/campaigns/${cb.id}/send`, { scheduledFor: at.toISOString() });
    expect(sa.body.data.status).toBe("SCHEDULED");
    expect(sb.body.data.status).toBe("SCHEDULED");
    expect((await b.p.api.post(`/campaigns/${cb.id}/cancel`)).body.data.status).toBe("DRAFT");

    await waitFor(async () => (await sinkMessagesTo(mailbox(), a.yes)).length >= 1, { timeoutMs: 10_000, intervalMs: 50 });
    const firstAt = Date.now();
    // The scheduler ticks every 500 ms and the first email is on the sink well under a second later on
    // a quiet machine; 5 s leaves room for a loaded one and still fails a scheduler that is minutes off.
    expect(firstAt - at.getTime()).toBeLessThan(5000);
    const done = await waitForStatus(a.p.api, ca.id, "SENT");
    expect(done.stats).toMatchObject({ recipients: 3, sent: 3 });
    const sink = await sinkMessagesTo(mailbox(), a.yes);
    expect(sink).toHaveLength(3);
    // Not early: the scheduler started it at its time or after (one clock, PostgreSQL's), and nothing
    // reached the sink before it.
    const [row] = await campaignsDb<{ onTime: boolean }[]>`select started_at >= scheduled_at as "onTime" from campaigns where id = ${ca.id}`;
    expect(row).toEqual({ onTime: true });
    for (const m of sink) expect(Date.parse(m.receivedAt)).toBeGreaterThanOrEqual(at.getTime());
    // The tick that started A would have started B in the same statement (same time, both due), had
    // the cancel not taken B out of the schedule.
    expect((await b.p.api.get(`/campaigns/${cb.id}`)).body).toMatchObject({ status: "DRAFT", stats: { recipients: 0 } });
    expect(await sinkMessagesTo(mailbox(), b.yes)).toHaveLength(0);
  });

  it("/test sends one copy to the address, rendered with that contact's data, outside the stats", async () => {
    const { p, from, yes } = await projectWithContacts("test-copy", 1, 0);
    const c = (await p.api.post("/campaigns", campaignBody(from))).body.data;
    const stranger = uniqueAddress("stranger");
    const res = await p.api.post(`/campaigns/${c.id}/test`, { email: stranger });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { emailId: expect.any(String) } });
    const known = await p.api.post(`/campaigns/${c.id}/test`, { email: yes[0] });
    expect(known.body.data.emailId).not.toBe(res.body.data.emailId);

    const [copy] = await waitFor(async () => {
      const m = await sinkMessagesTo(mailbox(), [stranger]);
      return m.length ? m : null;
    });
    expect(copy!.subject).toBe('Hello friend');
    const [mine] = await waitFor(async () => {
      const m = await sinkMessagesTo(mailbox(), [yes[0]!]);
      return m.length ? m : null;
    });
    expect(mine!.subject).toBe("Hello Ann0");
    // Both copies' delivery events have reached the stats consumer, which must not have counted them.
    const names = wireNames(sharedPlatform().prefix).consumers;
    await drain.through(names.sendingTransactional, names.campaignsStats);
    const after = (await p.api.get(`/campaigns/${c.id}`)).body;
    expect(after).toMatchObject({ status: "DRAFT", stats: { recipients: 0, sent: 0 } });
  });
});
