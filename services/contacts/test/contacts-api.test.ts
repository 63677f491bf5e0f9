import { beforeAll, describe, expect, it } from "vitest";
import { newProject } from "@mailroom/testkit/shared";
import { expectError, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject("contacts-api"), newProject("contacts-api-other")]);
});

const MISSING = "01900000-0000-7000-8000-000000000000";

describe("POST /contacts (upsert by email)", () => {
  it("creates with 201 and _meta.isNew, then updates with 200 and _meta.isUpdate", async () => {
    const email = uniqueEmail("Ada");
    const created = await p.api.post("/contacts", { email: `  ${email}  `, data: { plan: "free" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email, subscribed: true, data: { plan: "free" }, _meta: { isNew: true, isUpdate: false } });
    expect(created.body.createdAt).toBe(created.body.updatedAt);

    const updated = await p.api.post("/contacts", { email: email.toUpperCase(), data: { plan: "pro" } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, email, data: { plan: "pro" }, _meta: { isNew: false, isUpdate: true } });
  });

  it("concurrent upserts of one new address make exactly one contact", async () => {
    const email = uniqueEmail("race");
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => p.api.post("/contacts", { email, data: { [`k${i}`]: i } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const list = await p.api.get(`/contacts?search=${encodeURIComponent(email)}`);
    expect(list.body.total).toBe(1);
    expect(Object.keys(list.body.data[0].data)).toHaveLength(8);
  });

  it("ignores unknown fields and never stores them", async () => {
    const res = await p.api.post("/contacts", { email: uniqueEmail(), nickname: "x", id: MISSING, createdAt: "1999-01-01T00:00:00Z" });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty("nickname");
    expect(res.body.id).not.toBe(MISSING);
    const read = await p.api.get(`/contacts/${res.body.id}`);
    expect(read.body).not.toHaveProperty("nickname");
    expect(read.body.createdAt).not.toMatch(/^1999/);
  });

  it("removes reserved keys from data", async () => {
    const res = await p.api.post("/contacts", {
      email: uniqueEmail(),
      data: { id: "x", mailroom_id: "x", mailroom_email: "x", email: "x", unsubscribeUrl: "x", subscribeUrl: "x", manageUrl: "x", ok: 1 },
    });
    expect(res.body.data).toEqual({ ok: 1 });
  });

  it.each([
    ["an invalid email", { email: "not-an-email" }],
    ["a missing email", { data: {} }],
    ["string data", { email: uniqueEmail(), data: "plan=pro" }],
    ["array data", { email: uniqueEmail(), data: [1, 2] }],
    ["a non-boolean subscribed", { email: uniqueEmail(), subscribed: "yes" }],
  ])("refuses %s with 400 VALIDATION_ERROR and details", async (_what, body) => {
    const res = await p.api.post("/contacts", body);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.details?.length).toBeGreaterThan(0);
  });

  it.each([
    ["more than 100 keys", Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))],
    ["nesting deeper than 5 levels", { a: { b: { c: { d: { e: { f: 1 } } } } } }],
    ["more than 64 KB", { big: "x".repeat(70 * 1024) }],
  ])("refuses data with %s (reason contact_data_limit)", async (_what, data) => {
    const res = await p.api.post("/contacts", { email: uniqueEmail(), data });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.reason).toBe("contact_data_limit");
  });

  it("needs a secret key", async () => {
    expectError(await p.anon.post("/contacts", { email: uniqueEmail() }), 401, "UNAUTHORIZED");
    expectError(await p.publicApi.post("/contacts", { email: uniqueEmail() }), 401, "UNAUTHORIZED");
    expectError(await p.publicApi.get("/contacts"), 401, "UNAUTHORIZED");
  });
});

describe("GET /contacts/{id}", () => {
  it("answers the Contact", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail(), subscribed: false });
    const res = await p.api.get(`/contacts/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: c.id, email: c.email, subscribed: false, topics: {}, data: {}, createdAt: c.createdAt, updatedAt: c.updatedAt });
  });

  it.each([["a missing id", MISSING], ["a non-UUID id", "abc"], ["an SQL-looking id", "1' or '1'='1"]])("404 for %s", async (_w, id) => {
    expectError(await p.api.get(`/contacts/${encodeURIComponent(id)}`), 404, "NOT_FOUND");
  });
});

describe("PATCH /contacts/{id}", () => {
  it("changes the email, subscription and data", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail(), data: { a: 1, b: 2 } });
    const email = uniqueEmail("New");
    const res = await p.api.patch(`/contacts/${c.id}`, { email, subscribed: false, data: { a: null, b: "", c: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, email, subscribed: false, data: { b: 2, c: true } });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(c.updatedAt));
    expect((await p.api.get(`/contacts/${c.id}`)).body).toEqual(res.body);
  });

  it("409 CONFLICT when another contact of the project has the email (any case)", async () => {
    const { body: a } = await p.api.post("/contacts", { email: uniqueEmail() });
    const { body: b } = await p.api.post("/contacts", { email: uniqueEmail() });
    const res = await p.api.patch(`/contacts/${b.id}`, { email: a.email.toUpperCase() });
    expectError(res, 409, "CONFLICT");
    expect((await p.api.get(`/contacts/${b.id}`)).body.email).toBe(b.email);
  });

  it("a contact may change the case of its own address", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail("low") });
    const res = await p.api.patch(`/contacts/${c.id}`, { email: c.email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(c.email.toUpperCase());
  });

  it("refuses an invalid email and answers 404 for missing or non-UUID ids", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail() });
    expectError(await p.api.patch(`/contacts/${c.id}`, { email: "nope" }), 400, "VALIDATION_ERROR");
    expectError(await p.api.patch(`/contacts/${c.id}`, { data: 5 }), 400, "VALIDATION_ERROR");
    expectError(await p.api.patch(`/contacts/${MISSING}`, { subscribed: true }), 404, "NOT_FOUND");
    expectError(await p.api.patch(`/contacts/xyz`, { subscribed: true }), 404, "NOT_FOUND");
  });
});

describe("DELETE /contacts/{id}", () => {
  it("204 with no body, then 404", async () => {
    const { body: c } = await p.api.post("/contacts", { email: uniqueEmail() });
    await p.api.post("/v1/track", { email: c.email, event: "signup" });
    const res = await p.api.delete(`/contacts/${c.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe("");
    expectError(await p.api.get(`/contacts/${c.id}`), 404, "NOT_FOUND");
    expectError(await p.api.get(`/contacts/${c.id}/events`), 404, "NOT_FOUND");
    expectError(await p.api.delete(`/contacts/${c.id}`), 404, "NOT_FOUND");
    expectError(await p.api.delete(`/contacts/not-a-uuid`), 404, "NOT_FOUND");
  });
});

describe("tenant isolation", () => {
  it("project B never sees, changes or deletes project A's contacts or events", async () => {
    const email = uniqueEmail("tenant");
    const { body: a } = await p.api.post("/contacts", { email, data: { owner: "A" } });
    await p.api.post("/v1/track", { email, event: "a-only-event" });

    expectError(await other.api.get(`/contacts/${a.id}`), 404, "NOT_FOUND");
    expectError(await other.api.patch(`/contacts/${a.id}`, { data: { owner: "B" } }), 404, "NOT_FOUND");
    expectError(await other.api.delete(`/contacts/${a.id}`), 404, "NOT_FOUND");
    expectError(await other.api.get(`/contacts/${a.id}/events`), 404, "NOT_FOUND");
    const list = await other.api.get(`/contacts?search=${encodeURIComponent(email)}`);
    expect(list.body).toMatchObject({ data: [], total: 0 });
    expect((await other.api.get("/events/names")).body.data).not.toContain("a-only-event");

    // The same address in B is B's own contact; A's stays as it was.
    const inB = await other.api.post("/contacts", { email, data: { owner: "B" } });
    expect(inB.status).toBe(201);
    expect(inB.body.id).not.toBe(a.id);
    await other.publicApi.post("/v1/track", { email, event: "b-event", data: { owner: "B2" } });
    const still = await p.api.get(`/contacts/${a.id}`);
    expect(still.body.data).toEqual({ owner: "A" });
    const events = await p.api.get(`/contacts/${a.id}/events`);
    expect(events.body.data.map((e: any) => e.name)).toEqual(["a-only-event"]);
  });
});
