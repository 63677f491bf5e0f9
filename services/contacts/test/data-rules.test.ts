import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newProject, openDrain, type Drain } from "@mailroom/testkit/shared";
import { Bus, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let bus: Bus;
let drain: Drain;

beforeAll(async () => {
  [p, bus, drain] = await Promise.all([newProject("data-rules"), Bus.open(), openDrain()]);
});
afterAll(async () => {
  await bus?.close();
  await drain?.close();
});

const once = (value: unknown) => ({ value, persistent: false });
const planIs = (value: string) => ({ logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value }] }] });
const RESERVED = { id: "x", mailroom_id: "x", mailroom_email: "x", email: "x", unsubscribeUrl: "x", subscribeUrl: "x", manageUrl: "x" };
/** Existing data every case starts from. */
const START = { plan: "free", name: "Ada", gone: true };
/** One body exercising all five rules. */
const INPUT = { plan: "pro", name: "", gone: null, count: 3, code: once("123456"), profile: { city: "Oslo" }, ...RESERVED };

/** Each entry point, seen from outside: apply INPUT to a contact holding START, return what is stored. */
const ENTRY_POINTS = {
  "POST /contacts": async (email: string) => {
    await p.api.post("/contacts", { email, data: START });
    return (await p.api.post("/contacts", { email, data: INPUT })).body.data;
  },
  "PATCH /contacts/{id}": async (email: string) => {
    const { body } = await p.api.post("/contacts", { email, data: START });
    return (await p.api.patch(`/contacts/${body.id}`, { data: INPUT })).body.data;
  },
  "POST /v1/track": async (email: string) => {
    await p.api.post("/contacts", { email, data: START });
    const { body } = await p.publicApi.post("/v1/track", { email, event: "rules", data: INPUT });
    return (await p.api.get(`/contacts/${body.data.contact}`)).body.data;
  },
  "contacts.upsert (send)": async (email: string) => {
    await p.api.post("/contacts", { email, data: START });
    return (await bus.rpc("contacts.upsert", { projectId: p.id, email, data: INPUT, entryPoint: "send" })).result.contact.data;
  },
  "contacts.upsertMany (send)": async (email: string) => {
    await p.api.post("/contacts", { email, data: START });
    const reply = await bus.rpc("contacts.upsertMany", { projectId: p.id, emails: [uniqueEmail("beside"), email], data: INPUT, entryPoint: "send" });
    return reply.result.results[1].contact.data;
  },
};

describe.each(Object.entries(ENTRY_POINTS))("the data rules through %s", (entry, apply) => {
  it("store primitives, delete on null, skip empty strings, never store one-shot values or reserved keys", async () => {
    const stored = await apply(uniqueEmail("rules"));
    expect(stored).toMatchObject({ plan: "pro", name: "Ada", count: 3 });
    expect(stored).not.toHaveProperty("gone");
    expect(stored).not.toHaveProperty("code");
    for (const k of Object.keys(RESERVED)) expect(stored).not.toHaveProperty(k);
    // Plain objects: stored on track and by the management API; on send they are template variables only.
    if (entry.includes("send")) expect(stored).not.toHaveProperty("profile");
    else expect(stored.profile).toEqual({ city: "Oslo" });
  });
});

describe("contacts.upsert over NATS (the /v1/send path)", () => {
  it("answers template variables: stored data plus one-shot values, reserved keys removed", async () => {
    const email = uniqueEmail("send");
    const reply = await bus.rpc("contacts.upsert", { projectId: p.id, email, data: { plan: "pro", code: once("X"), order: { id: 7 }, email: "spoof" }, entryPoint: "send" });
    expect(reply.ok).toBe(true);
    expect(reply.result).toMatchObject({ isNew: true, changed: true, contact: { email, subscribed: false, data: { plan: "pro" } } });
    expect(reply.result.templateData).toEqual({ plan: "pro", code: "X", order: { id: 7 } });
    const again = await bus.rpc("contacts.upsert", { projectId: p.id, email, entryPoint: "send" });
    expect(again.result).toMatchObject({ isNew: false, changed: false, templateData: { plan: "pro" } });
  });

  it("refuses bad input as VALIDATION_ERROR", async () => {
    expect((await bus.rpc("contacts.upsert", { projectId: p.id, email: "bad", entryPoint: "send" })).error).toMatchObject({ error: "VALIDATION_ERROR" });
    expect((await bus.rpc("contacts.upsert", { projectId: "not-a-uuid", email: "a@b.co", entryPoint: "send" })).error).toMatchObject({ error: "VALIDATION_ERROR" });
    const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
    expect((await bus.rpc("contacts.upsert", { projectId: p.id, email: "a@b.co", data: deep, entryPoint: "api" })).error).toMatchObject({ reason: "contact_data_limit" });
  });
});

describe("contacts.upsertMany over NATS (a /v1/send's recipients)", () => {
  it("answers one result per address in order: new, unchanged, changed, and a repeat in another case", async () => {
    const [fresh, same, changing] = [uniqueEmail("new"), uniqueEmail("same"), uniqueEmail("changing")];
    const { body: kept } = await p.api.post("/contacts", { email: same, subscribed: true, data: { plan: "pro" } });
    const { body: old } = await p.api.post("/contacts", { email: changing, subscribed: true, data: { plan: "free" } });
    const emails = [fresh, same, changing, fresh.toUpperCase()];
    const reply = await bus.rpc("contacts.upsertMany", { projectId: p.id, emails, data: { plan: "pro", code: once("X") }, entryPoint: "send" });
    expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
    const [a, b, c, d] = reply.result.results;
    expect(a).toMatchObject({ isNew: true, changed: true, contact: { email: fresh, subscribed: false, data: { plan: "pro" } } });
    expect(b).toMatchObject({ isNew: false, changed: false, contact: { id: kept.id, subscribed: true, data: { plan: "pro" } } });
    expect(c).toMatchObject({ isNew: false, changed: true, contact: { id: old.id, subscribed: true, data: { plan: "pro" } } });
    // the repeat names the contact the first created, and finds nothing left to change
    expect(d).toMatchObject({ isNew: false, changed: false, contact: { id: a.contact.id, email: fresh } });
    for (const r of [a, b, c, d]) expect(r.templateData).toEqual({ plan: "pro", code: "X" });
    expect((await p.api.get(`/contacts?search=${encodeURIComponent(fresh.split("@")[0]!)}`)).body.data).toHaveLength(1);
    expect((await p.api.get(`/contacts/${old.id}`)).body.data).toEqual({ plan: "pro" });
  });

  it("creates each new contact once when two calls race for the same addresses", async () => {
    const emails = Array.from({ length: 20 }, () => uniqueEmail("race"));
    const calls = await Promise.all([emails, [...emails].reverse()].map((list) => bus.rpc("contacts.upsertMany", { projectId: p.id, emails: list, data: { n: 1 }, entryPoint: "send" })));
    for (const c of calls) expect(c.ok, JSON.stringify(c.error)).toBe(true);
    const ids = (c: { result: { results: { contact: { id: string; email: string } }[] } }) => new Map(c.result.results.map((r) => [r.contact.email, r.contact.id]));
    const [first, second] = calls.map((c) => ids(c as never));
    for (const e of emails) expect(second!.get(e)).toBe(first!.get(e));
    expect(calls.flatMap((c) => c.result.results).filter((r: { isNew: boolean }) => r.isNew)).toHaveLength(20);
  });

  it("keeps concurrent calls apart when they share a statement; a created change only where a segment is tracked", async () => {
    // Calls arriving together are written by one statement (group commit); each still gets its own answer.
    const [t, q] = await Promise.all([newProject("upsert-many-tracked"), newProject("upsert-many-untracked")]);
    const segment = await t.api.post("/segments", { name: "Pro", filters: planIs("pro"), trackMembership: true });
    expect(segment.status, JSON.stringify(segment.body)).toBe(201);
    const shared = uniqueEmail("shared");
    const [onlyA, onlyB] = [uniqueEmail("only-a"), uniqueEmail("only-b")];
    const [a, b, c] = await Promise.all([
      bus.rpc("contacts.upsertMany", { projectId: t.id, emails: [shared, onlyA], data: { plan: "pro" }, entryPoint: "send" }),
      bus.rpc("contacts.upsertMany", { projectId: t.id, emails: [onlyB, shared], data: { seats: 2 }, entryPoint: "send" }),
      bus.rpc("contacts.upsertMany", { projectId: q.id, emails: [shared], data: { plan: "q" }, subscribed: true, entryPoint: "send" }),
    ]);
    for (const r of [a, b, c]) expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const [aShared, aOnly] = a.result.results;
    const [bOnly, bShared] = b.result.results;
    const [cShared] = c.result.results;
    expect(aOnly).toMatchObject({ isNew: true, contact: { email: onlyA, data: { plan: "pro" } } });
    expect(bOnly).toMatchObject({ isNew: true, contact: { email: onlyB, data: { seats: 2 } } });
    // one contact for the shared address in t, created by exactly one of the two calls
    expect(aShared.contact.id).toBe(bShared.contact.id);
    expect([aShared.isNew, bShared.isNew].filter(Boolean)).toHaveLength(1);
    const stored = (await bus.rpc("contacts.get", { projectId: t.id, id: aShared.contact.id })).result.contact;
    expect(stored.data).toEqual({ plan: "pro", seats: 2 });
    // the other project's contact is its own
    expect(cShared).toMatchObject({ isNew: true, contact: { email: shared, subscribed: true, data: { plan: "q" } } });
    expect(cShared.contact.id).not.toBe(aShared.contact.id);

    // t tracks a segment: one created change per new contact, and the new pro contacts enter it
    const created = (changes: { contactId: string; kind: string }[], id: string) => changes.filter((x) => x.contactId === id && x.kind === "created");
    const ids = [aOnly.contact.id, bOnly.contact.id, aShared.contact.id];
    const tChanges = await bus.waitFor(() => bus.changes(t.id), (x) => ids.includes(x.contactId) && x.kind === "created", 3);
    for (const id of ids) expect(created(tChanges, id)).toHaveLength(1);
    const entries = await bus.waitFor(() => bus.events(t.id, "segment"), (e) => e.name === "segment.pro.entry", 2);
    expect(entries.map((e) => e.contactId).sort()).toEqual([aOnly.contact.id, aShared.contact.id].sort());
    // q tracks none: no change at all (whatever its call enqueued is out), and a segment made
    // afterwards still finds the contact
    await drain.through();
    expect(await bus.changes(q.id)).toEqual([]);
    const later = await q.api.post("/segments", { name: "Q", filters: planIs("q"), trackMembership: true });
    expect(later.status, JSON.stringify(later.body)).toBe(201);
    expect(later.body.memberCount).toBe(1);
    expect((await q.api.get(`/segments/${later.body.id}/contacts`)).body.data.map((m: { id: string }) => m.id)).toEqual([cShared.contact.id]);
  });

  it("refuses bad input as VALIDATION_ERROR and writes nothing", async () => {
    const ok = uniqueEmail("untouched");
    const bad = [
      { projectId: p.id, emails: [], entryPoint: "send" },
      { projectId: p.id, emails: [ok, "not-an-address"], entryPoint: "send" },
      { projectId: p.id, emails: Array.from({ length: 101 }, () => uniqueEmail("many")), entryPoint: "send" },
      { projectId: "not-a-uuid", emails: [ok], entryPoint: "send" },
      { projectId: p.id, emails: [ok], entryPoint: "nowhere" },
    ];
    for (const req of bad) expect((await bus.rpc("contacts.upsertMany", req)).error, JSON.stringify(req).slice(0, 80)).toMatchObject({ error: "VALIDATION_ERROR" });
    const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
    expect((await bus.rpc("contacts.upsertMany", { projectId: p.id, emails: [ok], data: deep, entryPoint: "api" })).error).toMatchObject({ reason: "contact_data_limit" });
    expect((await bus.rpc("contacts.get", { projectId: p.id, email: ok })).result.contact).toBeNull();
  });
});

describe("the other RPCs", () => {
  it("contacts.get by id or email (any case), null when missing or in another project", async () => {
    const email = uniqueEmail("Get");
    const { body: c } = await p.api.post("/contacts", { email });
    expect((await bus.rpc("contacts.get", { projectId: p.id, id: c.id })).result.contact).toMatchObject({ id: c.id, email });
    expect((await bus.rpc("contacts.get", { projectId: p.id, email: email.toLowerCase() })).result.contact.id).toBe(c.id);
    const q = await newProject("rpc-other");
    expect((await bus.rpc("contacts.get", { projectId: q.id, id: c.id })).result).toEqual({ contact: null });
    expect((await bus.rpc("contacts.get", { projectId: p.id, id: "nope" })).result).toEqual({ contact: null });
  });

  it("contacts.page walks subscribed contacts by id; an unknown segment is NOT_FOUND (segments: segments-rpc.test.ts)", async () => {
    const q = await newProject("rpc-page");
    for (const [i, subscribed] of [true, false, true, true, false].entries()) await q.api.post("/contacts", { email: `p${i}@page.test`, subscribed });
    const all: string[] = [];
    let afterId: string | undefined;
    do {
      const r = (await bus.rpc("contacts.page", { projectId: q.id, limit: 2, subscribedOnly: true, ...(afterId ? { afterId } : {}) })).result;
      all.push(...r.contacts.map((c: any) => c.email));
      afterId = r.nextAfterId ?? undefined;
    } while (afterId);
    expect(all).toEqual(["p0@page.test", "p2@page.test", "p3@page.test"]);
    const everyone = (await bus.rpc("contacts.page", { projectId: q.id, limit: 10, subscribedOnly: false })).result;
    expect(everyone).toMatchObject({ nextAfterId: null });
    expect(everyone.contacts).toHaveLength(5);
    const seg = await bus.rpc("contacts.page", { projectId: q.id, limit: 10, subscribedOnly: true, segmentId: "01900000-0000-7000-8000-000000000000" });
    expect(seg.error).toMatchObject({ error: "NOT_FOUND" });
  });
});
