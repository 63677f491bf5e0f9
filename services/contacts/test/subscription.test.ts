import { afterAll, beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { newProject, openDrain, waitFor, type Drain } from "@mailroom/testkit/shared";
import { Bus, contactsDb, emailEvent as anEmailEvent, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let bus: Bus;
let drain: Drain;
let db: postgres.Sql;

beforeAll(async () => {
  [p, bus, drain] = await Promise.all([newProject("subscription"), Bus.open(), openDrain()]);
  db = contactsDb();
});
afterAll(async () => {
  await bus?.close();
  await drain?.close();
  await db?.end({ timeout: 1 });
});

/** The subscription events of one contact on the EVENTS stream. */
const subscriptionEvents = async (contactId: string) => (await bus.events(p.id, "contact")).filter((e) => e.contactId === contactId);

/**
 * Whatever the writes so far enqueued is on the streams, before asserting "nothing": every write
 * answered after its commit, and its messages were in the outbox in that same transaction.
 */
const published = () => drain.through();

describe("subscription changes emit contact.subscribed / contact.unsubscribed, and only changes do", () => {
  it("through PATCH, POST /contacts, /v1/track and contacts.upsert", async () => {
    const email = uniqueEmail("flip");
    const { body: c } = await p.api.post("/contacts", { email });
    expect(c.subscribed).toBe(true);
    await p.api.patch(`/contacts/${c.id}`, { subscribed: true }); // no change
    await p.api.patch(`/contacts/${c.id}`, { subscribed: false });
    await p.api.patch(`/contacts/${c.id}`, { subscribed: false }); // no change
    await p.api.post("/contacts", { email }); // omitted: keeps false
    await p.api.post("/v1/track", { email, event: "visit" }); // omitted: keeps false
    await p.api.post("/v1/track", { email, event: "visit", subscribed: true });
    await bus.rpc("contacts.upsert", { projectId: p.id, email, entryPoint: "send" }); // omitted: keeps true
    await bus.rpc("contacts.upsert", { projectId: p.id, email, subscribed: false, entryPoint: "send" });
    await p.api.post("/contacts", { email, subscribed: true });
    const events = await bus.waitFor(() => subscriptionEvents(c.id), () => true, 4);
    await published();
    expect((await subscriptionEvents(c.id)).map((e) => e.name)).toEqual([
      "contact.unsubscribed",
      "contact.subscribed",
      "contact.unsubscribed",
      "contact.subscribed",
    ]);
    expect(events[0]).toMatchObject({ family: "contact", projectId: p.id, email, data: {} });
    expect((await p.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(true);
  });

  it("a new contact starts at its entry point's value, without an event", async () => {
    const sent = (await bus.rpc("contacts.upsert", { projectId: p.id, email: uniqueEmail("send"), entryPoint: "send" })).result.contact;
    const tracked = (await p.api.post("/v1/track", { email: uniqueEmail("track"), event: "x" })).body.data.contact;
    const posted = (await p.api.post("/contacts", { email: uniqueEmail("post") })).body;
    expect(sent.subscribed).toBe(false);
    expect((await p.api.get(`/contacts/${tracked}`)).body.subscribed).toBe(true);
    expect(posted.subscribed).toBe(true);
    await published();
    for (const id of [sent.id, tracked, posted.id]) expect(await subscriptionEvents(id)).toEqual([]);
  });

  it("contacts.setSubscription emits on change only, with the given reason", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("rpc") });
    const first = await bus.rpc("contacts.setSubscription", { projectId: p.id, contactId: c.id, subscribed: false });
    const second = await bus.rpc("contacts.setSubscription", { projectId: p.id, contactId: c.id, subscribed: false });
    expect([first.result.changed, second.result.changed]).toEqual([true, false]);
    expect((await bus.rpc("contacts.setSubscription", { projectId: p.id, contactId: randomUUID(), subscribed: false })).error.error).toBe("NOT_FOUND");
    await bus.waitFor(() => subscriptionEvents(c.id), () => true);
    await published();
    expect((await subscriptionEvents(c.id)).map((e) => e.name)).toEqual(["contact.unsubscribed"]);
  });
});

describe("contact-change messages on CONTACT_CHANGES", () => {
  it("one per create, update and delete, naming what changed; none for a no-op", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("chg"), data: { plan: "free" } });
    await p.api.patch(`/contacts/${c.id}`, { data: { plan: "free" } }); // no-op
    await p.api.patch(`/contacts/${c.id}`, { email: uniqueEmail("chg2"), subscribed: false, data: { plan: "pro", seats: 2 } });
    await p.api.delete(`/contacts/${c.id}`);
    const changes = await bus.waitFor(() => bus.changes(p.id), (m) => m.contactId === c.id, 3);
    await published();
    expect((await bus.changes(p.id)).filter((m) => m.contactId === c.id).map((m) => [m.kind, m.changed])).toEqual([
      ["created", ["email", "subscribed", "data.plan"]],
      ["updated", ["email", "subscribed", "data.plan", "data.seats"]],
      ["deleted", []],
    ]);
    expect(changes[0]).toMatchObject({ projectId: p.id, id: expect.any(String), occurredAt: expect.any(String) });
  });
});

describe("the email-activity consumer", () => {
  const emailEvent = (contactId: string, name: string, data: Record<string, unknown> = {}) => anEmailEvent(p.id, contactId, name, data);
  const activity = (contactId: string) => db<{ kind: string }[]>`select kind from email_activity where contact_id = ${contactId} order by kind`;

  it("a permanent bounce unsubscribes with reason bounce; a redelivery changes nothing", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("bounce") });
    const bounce = emailEvent(c.id, "email.bounce", { bounceType: "Permanent", transientBounce: false });
    await bus.publishEmailEvent(bounce);
    const [unsub] = await bus.waitFor(() => subscriptionEvents(c.id), () => true);
    expect(unsub).toMatchObject({ name: "contact.unsubscribed", data: { reason: "bounce" }, contactId: c.id });
    expect((await p.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(false);
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["bounced"]);

    // The user resubscribes; the same event delivered again (a new Nats-Msg-Id, as after a lost ack) must not undo that.
    await p.api.patch(`/contacts/${c.id}`, { subscribed: true });
    await jetstream(bus.nc).publish(bus.names.subjects.event("email", p.id), JSON.stringify(bounce), { msgID: randomUUID() });
    await waitFor(async () => (await db`select 1 from consumed_events where id = ${bounce.id}`).length > 0);
    await published();
    expect((await p.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(true);
    expect((await subscriptionEvents(c.id)).map((e) => e.name)).toEqual(["contact.unsubscribed", "contact.subscribed"]);
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["bounced"]);
  });

  it("a complaint unsubscribes with reason complaint", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("complaint") });
    await bus.publishEmailEvent(emailEvent(c.id, "email.complaint", { complainedAt: new Date().toISOString() }));
    const [unsub] = await bus.waitFor(() => subscriptionEvents(c.id), () => true);
    expect(unsub).toMatchObject({ name: "contact.unsubscribed", data: { reason: "complaint" } });
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["complained"]);
  });

  it("a transient bounce is recorded as activity and leaves the contact subscribed", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("soft") });
    await bus.publishEmailEvent(emailEvent(c.id, "email.bounce", { bounceType: "Transient", transientBounce: true }));
    await bus.publishEmailEvent(emailEvent(c.id, "email.open", { openedAt: new Date().toISOString(), opens: 1, isFirstOpen: true }));
    await waitFor(async () => (await activity(c.id)).length === 2, { what: "two activity rows" });
    await published();
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["bounced", "opened"]);
    expect((await p.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(true);
    expect(await subscriptionEvents(c.id)).toEqual([]);
  });

  it("an event of another project, or for a deleted contact, changes nothing", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("foreign") });
    const foreign = { ...emailEvent(c.id, "email.complaint"), projectId: randomUUID() };
    await jetstream(bus.nc).publish(bus.names.subjects.event("email", foreign.projectId), JSON.stringify(foreign), { msgID: foreign.id });
    await waitFor(async () => (await db`select 1 from consumed_events where id = ${foreign.id}`).length > 0);
    expect((await p.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(true);
    expect(await activity(c.id)).toEqual([]);

    await p.api.delete(`/contacts/${c.id}`);
    const late = emailEvent(c.id, "email.bounce", { bounceType: "Permanent" });
    await bus.publishEmailEvent(late);
    await waitFor(async () => (await db`select 1 from consumed_events where id = ${late.id}`).length > 0);
    expect(await activity(c.id)).toEqual([]);
  });
});
