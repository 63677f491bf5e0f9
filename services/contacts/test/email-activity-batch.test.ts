import { afterAll, beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { EventEnvelope } from "@mailroom/contracts";
import { createLogger, openDatabase, OutboxRelay, type Sql } from "@mailroom/kit";
import { newProject, openDrain, sharedPlatform, waitFor, type Drain } from "@mailroom/testkit/shared";
import { EmailActivityProjection } from "../src/usecases/email-activity.js";
import { Writer } from "../src/usecases/writer.js";
import { Bus, contactsDb, emailEvent, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let q: Project;
/** Tracks no segment: its activity needs no contact changes. */
let untracked: Project;
let bus: Bus;
let drain: Drain;
let db: postgres.Sql;
let serviceSql: Sql;
let projection: EmailActivityProjection;

/**
 * Most cases hand an exact batch to the projection, in this process, against the platform's contacts
 * database (through a client opened the way the service opens its own), with a relay of its own that
 * publishes what each batch committed, as the service's does.
 */
beforeAll(async () => {
  [p, q, untracked, bus, drain] = await Promise.all([newProject("batch-a"), newProject("batch-b"), newProject("batch-c"), Bus.open(), openDrain()]);
  // Contact changes feed only the segment tracker, so they are emitted for projects that track one.
  for (const project of [p, q]) {
    const res = await project.api.post("/segments", { name: "Tracked", filters: openedEver, trackMembership: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  db = contactsDb();
  const url = new URL(sharedPlatform().env.DATABASE_URL!);
  url.pathname = `/${sharedPlatform().prefix}_contacts`;
  serviceSql = openDatabase(url.toString(), { max: 2 });
  const relay = new OutboxRelay(serviceSql, jetstream(bus.nc), createLogger("test", "silent"), undefined);
  projection = new EmailActivityProjection(new Writer(serviceSql, relay, bus.names));
});
afterAll(async () => {
  await bus?.close();
  await drain?.close();
  await db?.end({ timeout: 1 });
  await serviceSql?.end({ timeout: 1 });
});

const openedEver = { logic: "AND", groups: [{ filters: [{ field: "email.opened", operator: "triggered" }] }] };
/** What the batches committed (changes, subscription events) is on the streams: the outbox holds none of it. */
const published = () => drain.through();
const contact = async (project: Project, subscribed = true) =>
  (await project.api.post("/contacts", { email: uniqueEmail("batch"), subscribed })).body as { id: string };
const activity = (contactId: string) =>
  db<{ kind: string; email_id: string; occurred_at: Date }[]>`select kind, email_id, occurred_at from email_activity where contact_id = ${contactId} order by kind`;
const changesOf = async (project: Project, contactId: string) =>
  (await bus.changes(project.id)).filter((c) => c.contactId === contactId).map((c) => [c.kind, c.changed]);
/** In the order they happened: the outbox promises each event once, not stream order across writers. */
const subscriptionEventsOf = async (project: Project, contactId: string) =>
  (await bus.events(project.id, "contact"))
    .filter((e) => e.contactId === contactId)
    .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
const consumed = async (ids: string[]) => (await db`select id from consumed_events where id = any(${ids}::text[])`).length;
/** A second email event for the same email as `e` (another event id, another time). */
const again = (e: EventEnvelope, name = e.name, at = new Date(Date.now() + 60_000)): EventEnvelope => ({
  ...e,
  id: randomUUID(),
  name,
  occurredAt: at.toISOString(),
});

describe("the email-activity projection, a batch per transaction", () => {
  it("a batch with duplicates: one row and one change per email and kind, the first occurrence's", async () => {
    const c = await contact(p);
    const sent = emailEvent(p.id, c.id, "email.sent", {}, new Date(Date.now() - 60_000));
    const delivered = again(sent, "email.delivery", new Date());
    const sentAgain = again(sent);
    await projection.apply([sent, sent, delivered, sentAgain, delivered]);
    const rows = await activity(c.id);
    expect(rows.map((r) => r.kind)).toEqual(["delivered", "sent"]);
    expect(new Date(rows[1]!.occurred_at).toISOString()).toBe(sent.occurredAt);
    // no id is kept for these: the activity row's key is what makes each count once
    expect(await consumed([sent.id, delivered.id, sentAgain.id])).toBe(0);
    await published();
    expect(await changesOf(p, c.id)).toEqual([
      ["created", ["email", "subscribed"]],
      ["activity", ["email.sent"]],
      ["activity", ["email.delivered"]],
    ]);
  });

  it("a redelivered batch changes nothing; a batch that overlaps one applies only what is new", async () => {
    const c = await contact(p);
    const sent = emailEvent(p.id, c.id, "email.sent");
    const bounce = emailEvent(p.id, c.id, "email.bounce", { bounceType: "Permanent" });
    await projection.apply([sent, bounce]);
    await p.api.patch(`/contacts/${c.id}`, { subscribed: true }); // resubscribed by the user
    await projection.apply([sent, bounce]);
    const open = again(sent, "email.open");
    await projection.apply([bounce, open, sent]);
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["bounced", "opened", "sent"]);
    expect((await p.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(true);
    await published();
    expect((await subscriptionEventsOf(p, c.id)).map((e) => e.name)).toEqual(["contact.unsubscribed", "contact.subscribed"]);
    expect((await changesOf(p, c.id)).filter(([kind]) => kind === "activity")).toEqual([
      ["activity", ["email.sent"]],
      ["activity", ["email.bounced"]],
      ["activity", ["email.opened"]],
    ]);
  });

  it("a permanent bounce or a complaint unsubscribes once, with the first reason; a transient bounce does not", async () => {
    const [a, b, soft] = [await contact(p), await contact(p, false), await contact(p)];
    await projection.apply([
      emailEvent(p.id, a.id, "email.bounce", { bounceType: "Permanent" }),
      emailEvent(p.id, a.id, "email.complaint"),
      emailEvent(p.id, b.id, "email.complaint"), // already unsubscribed
      emailEvent(p.id, soft.id, "email.bounce", { bounceType: "Transient" }),
    ]);
    expect((await p.api.get(`/contacts/${a.id}`)).body.subscribed).toBe(false);
    expect((await p.api.get(`/contacts/${soft.id}`)).body.subscribed).toBe(true);
    await published();
    const unsub = await subscriptionEventsOf(p, a.id);
    expect(unsub).toHaveLength(1);
    expect(unsub[0]).toMatchObject({ name: "contact.unsubscribed", data: { reason: "bounce" }, contactId: a.id, projectId: p.id });
    expect(await subscriptionEventsOf(p, b.id)).toEqual([]);
    expect(await subscriptionEventsOf(p, soft.id)).toEqual([]);
    expect(await changesOf(p, a.id)).toEqual([
      ["created", ["email", "subscribed"]],
      ["activity", ["email.bounced"]],
      ["activity", ["email.complained"]],
      ["updated", ["subscribed"]],
    ]);
    expect((await activity(b.id)).map((r) => r.kind)).toEqual(["complained"]);
  });

  it("ids in upper case name the same contact and email", async () => {
    const c = await contact(p);
    const bounce = emailEvent(p.id.toUpperCase(), c.id.toUpperCase(), "email.bounce", { bounceType: "Permanent" });
    await projection.apply([bounce, { ...bounce, id: randomUUID(), data: { ...bounce.data, emailId: String(bounce.data.emailId).toUpperCase() } }]);
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["bounced"]);
    await published();
    expect((await subscriptionEventsOf(p, c.id)).map((e) => e.name)).toEqual(["contact.unsubscribed"]);
    expect(await changesOf(p, c.id)).toEqual([
      ["created", ["email", "subscribed"]],
      ["activity", ["email.bounced"]],
      ["updated", ["subscribed"]],
    ]);
  });

  it("events for a deleted contact are consumed and change nothing; the rest of the batch applies", async () => {
    const [gone, live] = [await contact(p), await contact(p)];
    await p.api.delete(`/contacts/${gone.id}`);
    const late = emailEvent(p.id, gone.id, "email.complaint");
    const ok = emailEvent(p.id, live.id, "email.sent");
    await projection.apply([late, ok]);
    // the unsubscribing event's id is kept, even though it changed nothing; the sent's needs none
    expect(await consumed([late.id, ok.id])).toBe(1);
    expect(await activity(gone.id)).toEqual([]);
    expect((await activity(live.id)).map((r) => r.kind)).toEqual(["sent"]);
    await published();
    expect((await changesOf(p, gone.id)).map(([kind]) => kind)).toEqual(["created", "deleted"]);
    expect(await subscriptionEventsOf(p, gone.id)).toEqual([]);
  });

  it("events of two projects in one batch apply each to its own project; a foreign project's id is ignored", async () => {
    const [a, b] = [await contact(p), await contact(q)];
    const ofA = emailEvent(p.id, a.id, "email.complaint");
    const ofB = emailEvent(q.id, b.id, "email.complaint");
    // Project q naming project p's contact (and the other way round): nothing there to project onto.
    const crossed = [emailEvent(q.id, a.id, "email.sent"), emailEvent(p.id, b.id, "email.open")];
    await projection.apply([crossed[0]!, ofA, crossed[1]!, ofB]);
    expect((await activity(a.id)).map((r) => r.kind)).toEqual(["complained"]);
    expect((await activity(b.id)).map((r) => r.kind)).toEqual(["complained"]);
    expect((await p.api.get(`/contacts/${a.id}`)).body.subscribed).toBe(false);
    expect((await q.api.get(`/contacts/${b.id}`)).body.subscribed).toBe(false);
    await published();
    expect((await subscriptionEventsOf(p, a.id)).map((e) => e.projectId)).toEqual([p.id]);
    expect((await subscriptionEventsOf(q, b.id)).map((e) => e.projectId)).toEqual([q.id]);
    expect(await subscriptionEventsOf(p, b.id)).toEqual([]);
    expect(await subscriptionEventsOf(q, a.id)).toEqual([]);
    expect((await changesOf(q, a.id)).length + (await changesOf(p, b.id)).length).toBe(0);
  });

  it("a project that tracks no segment gets its rows and unsubscriptions but no contact changes; a segment made later sees the rows", async () => {
    const c = await contact(untracked);
    await projection.apply([emailEvent(untracked.id, c.id, "email.open"), emailEvent(untracked.id, c.id, "email.complaint")]);
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["complained", "opened"]);
    expect((await untracked.api.get(`/contacts/${c.id}`)).body.subscribed).toBe(false);
    await published();
    expect((await subscriptionEventsOf(untracked, c.id)).map((e) => e.name)).toEqual(["contact.unsubscribed"]);
    expect((await changesOf(untracked, c.id)).map(([kind]) => kind)).toEqual(["created"]);
    // What the tracker would have done with the dropped change, the new segment's recording does.
    const res = await untracked.api.post("/segments", { name: "Openers", filters: openedEver, trackMembership: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const members = await untracked.api.get(`/segments/${res.body.id}/contacts`);
    expect(members.status).toBe(200);
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([c.id]);
  });

  it("through the stream: a malformed message in the middle of a burst is dropped alone", async () => {
    const c = await contact(p);
    const js = jetstream(bus.nc);
    const subject = bus.names.subjects.event("email", p.id);
    const first = emailEvent(p.id, c.id, "email.sent");
    const last = again(first, "email.delivery");
    await Promise.all([
      js.publish(subject, JSON.stringify(first), { msgID: first.id }),
      js.publish(subject, "not json", { msgID: randomUUID() }),
      js.publish(subject, JSON.stringify({ ...first, id: 42, name: null }), { msgID: randomUUID() }),
      js.publish(subject, JSON.stringify(last), { msgID: last.id }),
    ]);
    await waitFor(async () => (await activity(c.id)).length === 2, { what: "both good events projected", timeoutMs: 10_000 });
    expect((await activity(c.id)).map((r) => r.kind)).toEqual(["delivered", "sent"]);
  });
});
