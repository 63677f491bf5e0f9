import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { campaignBody, expectError, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
const mailbox = () => sharedPlatform().mailboxUrl;
const at = (url: string) => `${sharedPlatform().url}${new URL(url).pathname}`;

/**
 * Double opt-in (decisions.md §14): with the setting on, a public key's subscription creates the
 * contact unsubscribed and mails a confirmation link; nothing else reaches the contact until the
 * click (a GET only shows the button); the POST subscribes. A secret key subscribes directly.
 */
describe("double opt-in", () => {
  let p: Project;
  let from: string;

  beforeAll(async () => {
    p = await newProject("double-opt-in");
    from = await verifiedSender(p.id, sharedPlatform().env);
    expectError(await p.api.patch("/settings/sending", { doubleOptIn: { enabled: true, templateId: "018f0000-0000-7000-8000-00000000dead" } }), 400, "VALIDATION_ERROR");
    const set = await p.api.patch("/settings/sending", { doubleOptIn: { enabled: true } });
    expect(set.body).toEqual({ tracking: true, doubleOptIn: { enabled: true, templateId: null }, frequencyCap: null });
  });

  it("confirms a public key's subscription by email before anything else is sent", async () => {
    const email = uniqueAddress("doi");
    const tracked = await p.publicApi.post("/v1/track", { email, event: "signup", subscribed: true });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    const contactId = tracked.body.data.contact as string;
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(false);

    const [confirmation] = await waitFor(async () => {
      const m = await sinkMessagesTo(mailbox(), [email]);
      return m.length > 0 ? m : null;
    }, { timeoutMs: 15_000, what: "the confirmation email" });
    // the project has no template on a verified domain: Mailroom's own words, naming it (decisions.md §15)
    expect(confirmation!.subject).toBe("Confirm your subscription to double-opt-in");
    const link = /href="([^"]*\/c\/[A-Za-z0-9_-]+)"/.exec(confirmation!.html!)![1]!;

    // a campaign sent before the click does not reach the contact
    const c = await p.api.post("/campaigns", campaignBody(from));
    await p.api.post(`/campaigns/${c.body.data.id}/send`);
    await waitForStatus(p.api, c.body.data.id, "SENT");
    expect((await sinkMessagesTo(mailbox(), [email])).length).toBe(1);

    // a tampered token changes nothing; a GET (a mail scanner) only shows the button
    expect((await fetch(`${at(link)}x`, { method: "POST" })).status).toBe(404);
    const page = await fetch(at(link));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Confirm");
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(false);

    const confirmed = await fetch(at(link), { method: "POST" });
    expect(confirmed.status).toBe(200);
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(true);
  });

  it("lets a secret key subscribe directly, without a confirmation email", async () => {
    const email = uniqueAddress("doi-sk");
    const created = await p.api.post("/contacts", { email, subscribed: true });
    expect(created.body.subscribed).toBe(true);
    const tracked = await p.api.post("/v1/track", { email: uniqueAddress("doi-sk-track"), event: "signup" });
    expect((await p.api.get(`/contacts/${tracked.body.data.contact}`)).body.subscribed).toBe(true);
    // give a confirmation that should not exist the time one would take to arrive
    const c = await p.api.post("/campaigns", campaignBody(from, { name: "After sk" }));
    await p.api.post(`/campaigns/${c.body.data.id}/send`);
    await waitForStatus(p.api, c.body.data.id, "SENT");
    const msgs = await sinkMessagesTo(mailbox(), [email]);
    expect(msgs.map((m) => m.subject)).toEqual(["Hello friend"]);
  });

  it("confirms an import's new subscriptions by email, and subscribes nobody before the click", async () => {
    const [fresh, declined, lapsed, member] = ["doi-imp-new", "doi-imp-no", "doi-imp-lapsed", "doi-imp-member"].map(uniqueAddress) as [string, string, string, string];
    await p.api.post("/contacts", { email: lapsed, subscribed: false });
    await p.api.post("/contacts", { email: member, subscribed: true });
    const csv = ["email,subscribed,plan", `${fresh},,pro`, `${declined},false,pro`, `${lapsed},true,pro`, `${member},true,pro`].join("\n");
    const started = await p.api.post("/contacts/imports", csv, { "content-type": "text/csv" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const done = await waitFor(async () => {
      const r = await p.api.get(`/contacts/imports/${started.body.id}`);
      return r.body.status === "RUNNING" ? null : r.body;
    }, { what: "the import to end" });
    expect(done).toMatchObject({ status: "COMPLETED", rows: 4, created: 2, updated: 2, failed: 0, awaitingConfirmation: 2 });
    const subscribed = async (email: string) => (await p.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0].subscribed as boolean;
    expect(await Promise.all([fresh, declined, lapsed, member].map(subscribed))).toEqual([false, false, false, true]);

    // the new address and the lapsed one asked to subscribe: a link each, nobody else
    const confirmations = await waitFor(async () => {
      const m = await sinkMessagesTo(mailbox(), [fresh, lapsed]);
      return m.length === 2 ? m : null;
    }, { timeoutMs: 15_000, what: "the two confirmation emails" });
    expect(confirmations.map((m) => m.subject)).toEqual(Array(2).fill("Confirm your subscription to double-opt-in"));

    // a campaign sent before the clicks reaches the subscribed member only
    const c = await p.api.post("/campaigns", campaignBody(from, { name: "After import" }));
    await p.api.post(`/campaigns/${c.body.data.id}/send`);
    await waitForStatus(p.api, c.body.data.id, "SENT");
    expect((await sinkMessagesTo(mailbox(), [member])).map((m) => m.subject)).toContain("Hello friend");
    expect((await sinkMessagesTo(mailbox(), [fresh, declined, lapsed])).length).toBe(2);

    const toFresh = confirmations.find((m) => m.envelope.rcptTo.some((r) => r.toLowerCase() === fresh.toLowerCase()))!;
    const link = /href="([^"]*\/c\/[A-Za-z0-9_-]+)"/.exec(toFresh.html!)![1]!;
    expect((await fetch(at(link), { method: "POST" })).status).toBe(200);
    expect(await subscribed(fresh)).toBe(true);
  });
});
