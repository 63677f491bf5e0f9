import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newProject, openDrain, sharedPlatform, type Drain } from "@mailroom/testkit/shared";
import { Bus, expectError, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let bus: Bus;
let drain: Drain;

beforeAll(async () => {
  [p, bus, drain] = await Promise.all([newProject("track"), Bus.open(), openDrain()]);
});
afterAll(async () => {
  await bus?.close();
  await drain?.close();
});

describe("POST /v1/track", () => {
  it("works with a public key, creates the contact subscribed, answers contact, event and timestamp", async () => {
    const email = uniqueEmail("pk");
    const res = await p.publicApi.post("/v1/track", { email, event: "signup" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { contact: expect.any(String), event: expect.any(String), timestamp: expect.any(String) } });
    const contact = await p.api.get(`/contacts/${res.body.data.contact}`);
    expect(contact.body).toMatchObject({ email, subscribed: true, data: {} });
  });

  it("works with a secret key, and stores an event record every time (no dedupe)", async () => {
    const email = uniqueEmail("sk");
    const a = await p.api.post("/v1/track", { email, event: "page.view", data: { path: "/a" } });
    const b = await p.api.post("/v1/track", { email, event: "page.view", data: { path: "/a" } });
    expect(a.body.data.contact).toBe(b.body.data.contact);
    expect(a.body.data.event).not.toBe(b.body.data.event);
    const events = await p.api.get(`/contacts/${a.body.data.contact}/events`);
    expect(events.status).toBe(200);
    expect(events.body).toMatchObject({ hasMore: false, cursor: null });
    expect(events.body.data.map((e: any) => e.id)).toEqual([b.body.data.event, a.body.data.event]);
    expect(events.body.data[0]).toEqual({ id: b.body.data.event, name: "page.view", data: { path: "/a" }, createdAt: b.body.data.timestamp });
  });

  it("a browser preflight is answered 204 with CORS for any origin", async () => {
    const res = await fetch(new URL("/v1/track", sharedPlatform().url), {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    const post = await p.publicApi.post("/v1/track", { email: uniqueEmail(), event: "cors" }, { origin: "https://shop.example" });
    expect(post.headers.get("access-control-allow-origin")).toBe("*");
  });

  it.each(["email.sent", "email.anything", "contact.subscribed", "contact.unsubscribed", "segment.vip.entry", "segment.a.b.exit"])(
    "refuses the reserved name %s with reason reserved_event",
    async (event) => {
      const email = uniqueEmail("reserved");
      const res = await p.publicApi.post("/v1/track", { email, event });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.reason).toBe("reserved_event");
      expect((await p.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.total).toBe(0);
    },
  );

  it.each(["segment.vip", "contact.created", "emails.sent", "Email.Sent"])("accepts the non-reserved name %s", async (event) => {
    expect((await p.api.post("/v1/track", { email: uniqueEmail(), event })).status).toBe(200);
  });

  it.each([
    ["an invalid email", { email: "nope", event: "x" }],
    ["a missing event", { email: "a@b.co" }],
    ["an empty event", { email: "a@b.co", event: "" }],
    ["a 201-character event", { email: "a@b.co", event: "x".repeat(201) }],
    ["a control character in the event", { email: "a@b.co", event: "a\nb" }],
    ["non-object data", { email: "a@b.co", event: "x", data: 7 }],
  ])("refuses %s", async (_what, body) => {
    expectError(await p.api.post("/v1/track", body), 400, "VALIDATION_ERROR");
  });

  it("publishes the custom event (one-shot values included) and an event change message", async () => {
    const email = uniqueEmail("pub");
    const res = await p.api.post("/v1/track", { email, event: "order.placed", data: { total: 42, code: { value: "X1", persistent: false } } });
    const id = res.body.data.event;
    const [event] = await bus.waitFor(() => bus.events(p.id, "custom"), (e) => e.id === id);
    expect(event).toMatchObject({ name: "order.placed", family: "custom", projectId: p.id, contactId: res.body.data.contact, email, data: { total: 42, code: "X1" } });
    const stored = await p.api.get(`/contacts/${res.body.data.contact}/events`);
    expect(stored.body.data[0].data).toEqual({ total: 42 });
    const changes = await bus.waitFor(() => bus.changes(p.id), (c) => c.contactId === res.body.data.contact, 2);
    expect(changes.map((c) => c.kind)).toEqual(["created", "event"]);
    expect(changes[0]!.changed).toEqual(["email", "subscribed", "data.total"]);
    expect(changes[1]).toMatchObject({ changed: ["event.order.placed"], eventName: "order.placed", projectId: p.id });
  });

  it("a repeat track that changes nothing records and publishes the event, and no contact change", async () => {
    const email = uniqueEmail("again");
    const first = await p.api.post("/v1/track", { email, event: "viewed", data: { plan: "pro" } });
    const again = await p.api.post("/v1/track", { email: email.toUpperCase(), event: "viewed", data: { plan: "pro", once: { value: 1, persistent: false } } });
    expect(again.status).toBe(200);
    const contactId = first.body.data.contact;
    expect(again.body.data.contact).toBe(contactId);
    const [event] = await bus.waitFor(() => bus.events(p.id, "custom"), (e) => e.id === again.body.data.event);
    expect(event).toMatchObject({ contactId, email, data: { plan: "pro", once: 1 } });
    await bus.waitFor(() => bus.changes(p.id), (c) => c.contactId === contactId && c.kind === "event", 2);
    // A write's messages go out side by side, so its event change says nothing of a change beside it.
    await drain.through();
    expect((await bus.changes(p.id)).filter((c) => c.contactId === contactId).map((c) => c.kind)).toEqual(["created", "event", "event"]);
    const stored = await p.api.get(`/contacts/${contactId}/events`);
    expect(stored.body.data.map((e: { id: string }) => e.id)).toEqual([again.body.data.event, first.body.data.event]);
    // a change in the data still updates the contact, with its change message
    await p.api.post("/v1/track", { email, event: "viewed", data: { plan: "team" } });
    expect((await p.api.get(`/contacts/${contactId}`)).body.data).toEqual({ plan: "team" });
    const changes = await bus.waitFor(() => bus.changes(p.id), (c) => c.contactId === contactId && c.kind === "updated");
    expect(changes[0]!.changed).toEqual(["data.plan"]);
  });

  it("concurrent tracks of one new address: one contact created, every event recorded and published", async () => {
    // the first write is one statement that creates the contact; the others find it and take the transaction
    const email = uniqueEmail("race");
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => p.api.post("/v1/track", { email, event: "raced", data: { [`k${i}`]: i } })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const contactIds = new Set(answers.map((a) => a.body.data.contact));
    expect(contactIds.size).toBe(1);
    const [contactId] = [...contactIds];
    const contact = await p.api.get(`/contacts/${contactId}`);
    expect(Object.keys(contact.body.data).sort()).toEqual(["k0", "k1", "k2", "k3", "k4", "k5"]);
    const stored = await p.api.get(`/contacts/${contactId}/events?limit=100`);
    expect(stored.body.data.map((e: { id: string }) => e.id).sort()).toEqual(answers.map((a) => a.body.data.event).sort());
    const published = await bus.waitFor(() => bus.events(p.id, "custom"), (e) => e.contactId === contactId, 6);
    expect(published).toHaveLength(6);
    // A write's messages go out side by side: its event change being out says nothing of the others.
    await bus.waitFor(() => bus.changes(p.id), (c) => c.contactId === contactId && c.kind === "event", 6);
    await drain.through();
    const changes = (await bus.changes(p.id)).filter((c) => c.contactId === contactId);
    expect(changes.filter((c) => c.kind === "created")).toHaveLength(1);
  });
});

describe("GET /contacts/{id}/events and GET /events/names", () => {
  it("pages a contact's events newest first with a cursor", async () => {
    const email = uniqueEmail("paged");
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await p.api.post("/v1/track", { email, event: `step-${n}` })).body.data.event);
    const contactId = (await p.api.post("/contacts", { email })).body.id;
    const first = await p.api.get(`/contacts/${contactId}/events?limit=2`);
    expect(first.body.data.map((e: any) => e.name)).toEqual(["step-3", "step-2"]);
    expect(first.body.hasMore).toBe(true);
    const second = await p.api.get(`/contacts/${contactId}/events?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(second.body).toMatchObject({ data: [{ id: ids[0], name: "step-1" }], hasMore: false, cursor: null });
    // A contacts-list cursor is not an events cursor.
    const listCursor = (await p.api.get("/contacts?limit=1")).body.cursor;
    expectError(await p.api.get(`/contacts/${contactId}/events?cursor=${encodeURIComponent(listCursor)}`), 400, "VALIDATION_ERROR");
    expectError(await p.api.get(`/contacts/${contactId}/events?limit=0`), 400, "VALIDATION_ERROR");
  });

  it("lists the distinct event names of the project, sorted", async () => {
    const q = await newProject("names");
    for (const event of ["b-event", "a-event", "b-event", "c.event"]) await q.publicApi.post("/v1/track", { email: uniqueEmail(), event });
    const res = await q.api.get("/events/names");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: ["a-event", "b-event", "c.event"] });
    expectError(await q.publicApi.get("/events/names"), 401, "UNAUTHORIZED");
  });
});
