import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jetstream } from "@nats-io/jetstream";
import { randomUUID } from "node:crypto";
import type { EventEnvelope } from "@mailroom/contracts";
import type postgres from "postgres";
import { newProject, openDrain, waitFor, type Drain } from "@mailroom/testkit/shared";
import { Bus, contactsDb, emailEvent, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
let bus: Bus;
let drain: Drain;
let db: postgres.Sql;

beforeAll(async () => {
  [p, other, bus, drain] = await Promise.all([newProject("segments-tracking"), newProject("segments-tracking-2"), Bus.open(), openDrain()]);
  db = contactsDb();
});
afterAll(async () => {
  await bus?.close();
  await drain?.close();
  await db?.end({ timeout: 1 });
});

type F = { field: string; operator: string; value?: unknown; unit?: string };
const all = (...filters: F[]) => ({ logic: "AND", groups: [{ filters }] });
const tagged = () => `t-${randomUUID().slice(0, 8)}`;

/** Segment events of the project, as `[edge, contactId]` for one segment. */
async function edges(segmentId: string, project = p): Promise<Array<[string, string | null]>> {
  return (await bus.events(project.id, "segment"))
    .filter((e) => e.data.segmentId === segmentId)
    .map((e) => [e.name.slice(e.name.lastIndexOf(".") + 1), e.contactId]);
}
async function waitForEdges(segmentId: string, n: number): Promise<EventEnvelope[]> {
  return bus.waitFor(() => bus.events(p.id, "segment"), (e) => e.data.segmentId === segmentId, n);
}
/** Every contact change so far has been evaluated and what that emitted is on the stream. */
const changesEvaluated = () => drain.through(bus.names.consumers.segmentsChanges);
/** The scheduler holds no due time for the segment: no tick will evaluate it again. */
const nothingDue = (segmentId: string) =>
  waitFor(async () => (await db`select 1 from segment_due where segment_id = ${segmentId}`).length === 0, {
    what: `segment ${segmentId} to have no due time left`,
  });

async function trackedSegment(name: string, filters: unknown, project = p) {
  const res = await project.api.post("/segments", { name, filters, trackMembership: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string; name: string; memberCount: number };
}

describe("membership tracking emits segment.<slug>.entry / .exit", () => {
  it("on a data change, within a second, with {segmentId, segmentName}", async () => {
    const tag = tagged();
    const s = await trackedSegment(`Pro Plan ${tag}`, all({ field: "data.plan", operator: "equals", value: tag }));
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("data"), data: { plan: "free" } });
    const before = Date.now();
    await p.api.patch(`/contacts/${c.id}`, { data: { plan: tag } });
    const [entry] = await waitForEdges(s.id, 1);
    expect(Date.now() - before).toBeLessThan(1000);
    expect(entry).toMatchObject({
      name: `segment.pro-plan-${tag}.entry`,
      family: "segment",
      projectId: p.id,
      contactId: c.id,
      email: c.email,
      data: { segmentId: s.id, segmentName: `Pro Plan ${tag}` },
    });
    expect((await p.api.get(`/segments/${s.id}`)).body.memberCount).toBe(1);

    await p.api.patch(`/contacts/${c.id}`, { data: { plan: null } });
    await waitForEdges(s.id, 2);
    expect(await edges(s.id)).toEqual([
      ["entry", c.id],
      ["exit", c.id],
    ]);
    expect((await p.api.get(`/segments/${s.id}/contacts`)).body.data).toEqual([]);
  });

  it("on a subscription change", async () => {
    const tag = tagged();
    const s = await trackedSegment("Unsubscribed", all({ field: "subscribed", operator: "equals", value: false }, { field: "data.tag", operator: "equals", value: tag }));
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("sub"), data: { tag } });
    await p.api.patch(`/contacts/${c.id}`, { subscribed: false });
    await waitForEdges(s.id, 1);
    await p.api.patch(`/contacts/${c.id}`, { subscribed: true });
    await waitForEdges(s.id, 2);
    expect(await edges(s.id)).toEqual([
      ["entry", c.id],
      ["exit", c.id],
    ]);
  });

  it("on a tracked event", async () => {
    const event = `purchase-${tagged()}`;
    const s = await trackedSegment("Buyers", all({ field: `event.${event}`, operator: "triggered" }));
    const email = uniqueEmail("buyer");
    const { body: c } = await p.api.post("/contacts", { email });
    await changesEvaluated();
    expect(await edges(s.id)).toEqual([]);
    await p.api.post("/v1/track", { email, event });
    await waitForEdges(s.id, 1);
    expect(await edges(s.id)).toEqual([["entry", c.id]]);
  });

  it("on an email open (from the email events on JetStream)", async () => {
    const tag = tagged();
    const s = await trackedSegment("Openers", all({ field: "email.opened", operator: "triggeredWithin", value: 7, unit: "days" }, { field: "data.tag", operator: "equals", value: tag }));
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("open"), data: { tag } });
    // An open 30 days ago is activity, but not inside the window.
    await bus.publishEmailEvent(emailEvent(p.id, c.id, "email.open", { isFirstOpen: true }, new Date(Date.now() - 30 * 86_400_000)));
    // The old open reaches the segment through the activity projection, then the contact-change feed.
    await drain.through(bus.names.consumers.contactsEmailActivity, bus.names.consumers.segmentsChanges);
    expect(await edges(s.id)).toEqual([]);
    await bus.publishEmailEvent(emailEvent(p.id, c.id, "email.open", { isFirstOpen: true }));
    await waitForEdges(s.id, 1);
    expect(await edges(s.id)).toEqual([["entry", c.id]]);
  });

  it("a triggeredWithin membership expires by itself as time passes", async () => {
    const event = `ping-${tagged()}`;
    // 0.05 minutes = 3 s: the smallest unit, fractional, so the test waits seconds, not a minute.
    const s = await trackedSegment("Recently pinged", all({ field: `event.${event}`, operator: "triggeredWithin", value: 0.05, unit: "minutes" }));
    const email = uniqueEmail("ping");
    const tracked = await p.api.post("/v1/track", { email, event });
    const at = Date.parse(tracked.body.data.timestamp);
    const [entry] = await waitForEdges(s.id, 1);
    expect(entry!.name).toBe(`segment.${s.slug}.entry`);
    const [, exit] = await waitFor(async () => {
      const got = (await bus.events(p.id, "segment")).filter((e) => e.data.segmentId === s.id);
      return got.length >= 2 ? got : null;
    }, { what: "the exit as the event ages out", timeoutMs: 10_000, intervalMs: 200 });
    expect(exit!.name).toBe(`segment.${s.slug}.exit`);
    // Not before the window closed, and soon after (one scheduler tick, 1 s by default).
    expect(Date.parse(exit!.occurredAt)).toBeGreaterThan(at + 3000);
    expect(Date.parse(exit!.occurredAt)).toBeLessThan(at + 3000 + 2500);
    expect((await p.api.get(`/segments/${s.id}`)).body.memberCount).toBe(0);
  });

  it("a time-relative segment switched on later still lets its present members expire", async () => {
    const event = `seen-${tagged()}`;
    const email = uniqueEmail("seen");
    const { body: t } = await p.api.post("/v1/track", { email, event });
    const s = await trackedSegment("Seen lately", all({ field: `event.${event}`, operator: "triggeredWithin", value: 0.05, unit: "minutes" }));
    expect(s.memberCount).toBe(1);
    const [exit] = await waitFor(async () => {
      const got = (await bus.events(p.id, "segment")).filter((e) => e.data.segmentId === s.id);
      return got.length >= 1 ? got : null;
    }, { what: "the exit of a member recorded at switch-on", timeoutMs: 10_000, intervalMs: 200 });
    expect(exit).toMatchObject({ name: `segment.${s.slug}.exit`, contactId: t.data.contact });
    await nothingDue(s.id);
    await changesEvaluated();
    expect(await edges(s.id)).toEqual([["exit", t.data.contact]]);
  });

  it("members present when tracking is switched on are recorded without events", async () => {
    const tag = tagged();
    const filters = all({ field: "data.tag", operator: "equals", value: tag });
    const contacts = await Promise.all([1, 2, 3].map(() => p.api.post("/contacts", { email: uniqueEmail("pre"), data: { tag } })));
    const atCreate = await trackedSegment("Present at create", filters);
    expect(atCreate.memberCount).toBe(3);
    const { body: later } = await p.api.post("/segments", { name: "Switched on later", filters });
    const switched = await p.api.patch(`/segments/${later.id}`, { trackMembership: true });
    expect(switched.body).toMatchObject({ trackMembership: true, memberCount: 3 });
    await changesEvaluated();
    expect(await edges(atCreate.id)).toEqual([]);
    expect(await edges(later.id)).toEqual([]);
    // From then on, changes emit as usual.
    await p.api.patch(`/contacts/${contacts[0]!.body.id}`, { data: { tag: null } });
    await waitForEdges(later.id, 1);
    expect(await edges(later.id)).toEqual([["exit", contacts[0]!.body.id]]);

    // A new definition re-records the members without events either.
    const { body: newcomer } = await p.api.post("/contacts", { email: uniqueEmail("new"), data: { tag: `${tag}-b` } });
    const redefined = await p.api.patch(`/segments/${later.id}`, { filters: all({ field: "data.tag", operator: "startsWith", value: tag }) });
    expect(redefined.body.memberCount).toBe(3);
    const listed = (await p.api.get(`/segments/${later.id}/contacts`)).body.data.map((x: { id: string }) => x.id);
    expect(listed).toEqual([contacts[1]!.body.id, contacts[2]!.body.id, newcomer.id].sort());
    await changesEvaluated();
    expect(await edges(later.id)).toEqual([["exit", contacts[0]!.body.id]]);
  });

  it("deleting a contact exits it from its segments; deleting a segment stops its events", async () => {
    const tag = tagged();
    const a = await trackedSegment("Del A", all({ field: "data.tag", operator: "equals", value: tag }));
    const b = await trackedSegment("Del B", all({ field: "data.tag", operator: "exists" }, { field: "data.tag", operator: "startsWith", value: "t-" }));
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("del"), data: { tag } });
    await waitForEdges(a.id, 1);
    await waitForEdges(b.id, 1);
    await p.api.delete(`/contacts/${c.id}`);
    await waitForEdges(a.id, 2);
    expect(await edges(a.id)).toEqual([
      ["entry", c.id],
      ["exit", c.id],
    ]);
    expect(await edges(b.id)).toEqual([
      ["entry", c.id],
      ["exit", c.id],
    ]);

    expect((await p.api.delete(`/segments/${a.id}`)).status).toBe(204);
    await p.api.post("/contacts", { email: uniqueEmail("after"), data: { tag } });
    await waitForEdges(b.id, 3);
    await changesEvaluated();
    expect((await edges(a.id)).length).toBe(2);
  });

  it("a segment defined by another tracked segment's membership follows it in the same change", async () => {
    const tag = tagged();
    const base = await trackedSegment("Base", all({ field: "data.tag", operator: "equals", value: tag }));
    const onTop = await trackedSegment("On top", all({ field: `segment.${base.id}`, operator: "memberOfSegment" }, { field: "subscribed", operator: "equals", value: true }));
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("chain"), data: { tag } });
    await waitForEdges(onTop.id, 1);
    await p.api.patch(`/contacts/${c.id}`, { data: { tag: "other" } });
    await waitForEdges(onTop.id, 2);
    expect(await edges(onTop.id)).toEqual([
      ["entry", c.id],
      ["exit", c.id],
    ]);
  });

  it("a redelivered change emits no second entry event", async () => {
    const tag = tagged();
    const s = await trackedSegment("Replay", all({ field: "data.tag", operator: "equals", value: tag }));
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("replay") });
    await p.api.patch(`/contacts/${c.id}`, { data: { tag } });
    await waitForEdges(s.id, 1);
    const changes = (await bus.changes(p.id)).filter((m) => m.contactId === c.id);
    expect(changes.map((m) => m.kind)).toEqual(["created", "updated"]);
    // Published again under new message ids, as after a lost ack or a replayed stream.
    for (const change of changes) {
      await jetstream(bus.nc).publish(bus.names.subjects.contactChange(p.id), JSON.stringify(change), { msgID: randomUUID() });
    }
    await waitFor(async () => (await bus.changes(p.id)).filter((m) => m.contactId === c.id).length === 4);
    await changesEvaluated();
    expect(await edges(s.id)).toEqual([["entry", c.id]]);
  });

  it("keeps tenants apart: a change in one project never moves another project's segment", async () => {
    const tag = tagged();
    const email = uniqueEmail("tenant");
    const filters = all({ field: "data.tag", operator: "equals", value: tag });
    // The same address and data in another project, already a member there before this test's change.
    await other.api.post("/contacts", { email, data: { tag } });
    const theirs = await trackedSegment("Tenant", filters, other);
    expect(theirs.memberCount).toBe(1);
    const mine = await trackedSegment("Tenant", filters);
    const { body: c } = await p.api.post("/contacts", { email, data: { tag } });
    await waitForEdges(mine.id, 1);
    await changesEvaluated();
    expect(await edges(mine.id)).toEqual([["entry", c.id]]);
    expect(await edges(theirs.id, other)).toEqual([]);
    expect((await p.api.get(`/segments/${mine.id}/contacts`)).body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
  });
});
