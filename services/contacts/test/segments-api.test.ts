import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newProject } from "@mailroom/testkit/shared";
import { Bus, expectError, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
let bus: Bus;

beforeAll(async () => {
  [p, other, bus] = await Promise.all([newProject("segments-api"), newProject("segments-other"), Bus.open()]);
});
afterAll(() => bus?.close());

const where = (field: string, operator: string, value?: unknown, unit?: string) => ({
  logic: "AND",
  groups: [{ filters: [{ field, operator, ...(value === undefined ? {} : { value }), ...(unit ? { unit } : {}) }] }],
});

describe("the Segments API (decisions §9)", () => {
  it("creates (201), reads, lists as a plain array, updates and deletes (204)", async () => {
    const tag = uniqueEmail("x").slice(2, 10);
    await p.api.post("/contacts", { email: uniqueEmail("crud"), data: { team: tag } });
    const created = await p.api.post("/segments", { name: "Team Members!", filters: where("data.team", "equals", tag) });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: "Team Members!",
      slug: "team-members",
      filters: where("data.team", "equals", tag),
      trackMembership: false,
      memberCount: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id;
    expect((await p.api.get(`/segments/${id}`)).body).toEqual(created.body);

    const list = await p.api.get("/segments");
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.find((s: { id: string }) => s.id === id)).toEqual(created.body);

    const renamed = await p.api.patch(`/segments/${id}`, { name: "Café Crème Users" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Café Crème Users", slug: "cafe-creme-users", memberCount: 1, filters: created.body.filters });
    const refiltered = await p.api.patch(`/segments/${id}`, { filters: where("data.team", "equals", "nobody") });
    expect(refiltered.body.memberCount).toBe(0);

    expect((await p.api.delete(`/segments/${id}`)).status).toBe(204);
    expectError(await p.api.get(`/segments/${id}`), 404, "NOT_FOUND");
    expectError(await p.api.delete(`/segments/${id}`), 404, "NOT_FOUND");
    expectError(await p.api.get("/segments/not-a-uuid"), 404, "NOT_FOUND");
  });

  it("pages the members by cursor, and memberCount is exact", async () => {
    const tag = `page-${uniqueEmail().slice(2, 10)}`;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await p.api.post("/contacts", { email: uniqueEmail("m"), data: { batch: tag } })).body.id);
    }
    await p.api.post("/contacts", { email: uniqueEmail("m"), data: { batch: "another" } });
    for (const trackMembership of [false, true]) {
      const { body: s } = await p.api.post("/segments", { name: `Batch ${trackMembership}`, filters: where("data.batch", "equals", tag), trackMembership });
      expect(s.memberCount).toBe(7);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: any } = await p.api.get(`/segments/${s.id}/contacts?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(3);
        expect(res.body.hasMore).toBe(res.body.cursor !== null);
        seen.push(...res.body.data.map((c: { id: string }) => c.id));
        cursor = res.body.cursor;
      } while (cursor);
      expect(seen).toEqual([...ids].sort());
      const first = await p.api.get(`/segments/${s.id}/contacts?limit=3`);
      expect(first.body.data[0]).toMatchObject({ id: expect.any(String), email: expect.any(String), subscribed: true, data: { batch: tag } });
      expectError(await p.api.get(`/segments/${s.id}/contacts?cursor=forged.cursor`), 400, "VALIDATION_ERROR");
    }
  });

  it("keeps projects apart: another project's segment is 404 and never counts its contacts", async () => {
    const tag = `iso-${uniqueEmail().slice(2, 10)}`;
    await other.api.post("/contacts", { email: uniqueEmail("theirs"), data: { iso: tag } });
    const { body: mine } = await p.api.post("/segments", { name: "Iso", filters: where("data.iso", "equals", tag), trackMembership: true });
    expect(mine.memberCount).toBe(0);
    const { body: theirs } = await other.api.post("/segments", { name: "Iso", filters: where("data.iso", "equals", tag) });
    expect(theirs.memberCount).toBe(1);
    for (const res of [
      await p.api.get(`/segments/${theirs.id}`),
      await p.api.get(`/segments/${theirs.id}/contacts`),
      await p.api.patch(`/segments/${theirs.id}`, { name: "Mine now" }),
      await p.api.delete(`/segments/${theirs.id}`),
    ]) {
      expectError(res, 404, "NOT_FOUND");
    }
    expect((await p.api.get("/segments")).body.map((s: { id: string }) => s.id)).not.toContain(theirs.id);
    // A member of another project's segment is not a member of anything here either.
    const ref = await p.api.post("/segments", { name: "Theirs", filters: where(`segment.${theirs.id}`, "memberOfSegment") });
    expectError(ref, 400, "VALIDATION_ERROR");
    expect(ref.body.details).toEqual([{ path: "filters.groups.0.filters.0.field", message: expect.stringContaining(theirs.id) }]);
  });

  it("refuses to delete a segment another segment's filters use (409 INVALID_STATE)", async () => {
    const { body: base } = await p.api.post("/segments", { name: "Base", filters: where("subscribed", "equals", true) });
    const { body: user } = await p.api.post("/segments", { name: "User", filters: where(`segment.${base.id}`, "memberOfSegment") });
    const res = await p.api.delete(`/segments/${base.id}`);
    expectError(res, 409, "INVALID_STATE");
    expect(res.body.reason).toBe("segment_in_use");
    expect((await p.api.delete(`/segments/${user.id}`)).status).toBe(204);
    expect((await p.api.delete(`/segments/${base.id}`)).status).toBe(204);
  });
});

describe("bad filters are a 400 whose details point at the offending path", () => {
  const deep = (levels: number): unknown =>
    levels === 1 ? where("subscribed", "equals", true) : { logic: "AND", groups: [{ filters: [], conditions: deep(levels - 1) }] };

  it.each([
    ["an unknown field", where("favourite.colour", "equals", "red"), "filters.groups.0.filters.0.field"],
    ["an unknown operator", where("data.plan", "looksLike", "pro"), "filters.groups.0.filters.0.operator"],
    ["an operator its field does not take", where("subscribed", "contains", "t"), "filters.groups.0.filters.0.operator"],
    ["a value of the wrong type", where("subscribed", "equals", "yes"), "filters.groups.0.filters.0.value"],
    ["a string operator with a number", where("data.plan", "startsWith", 3), "filters.groups.0.filters.0.value"],
    ["a missing value", where("data.plan", "equals"), "filters.groups.0.filters.0.value"],
    ["a missing unit", where("event.signup", "triggeredWithin", 3), "filters.groups.0.filters.0.unit"],
    ["an unknown unit", where("createdAt", "within", 3, "weeks"), "filters.groups.0.filters.0.unit"],
    ["a value on an operator that takes none", where("data.plan", "exists", "x"), "filters.groups.0.filters.0.value"],
    ["nesting deeper than the limit", deep(6), "filters.groups.0.conditions.groups.0.conditions.groups.0.conditions.groups.0.conditions.groups.0.conditions"],
    ["an unknown segment", where("segment.0190a0a0-0000-7000-8000-000000000000", "memberOfSegment"), "filters.groups.0.filters.0.field"],
  ])("%s", async (_what, filters, path) => {
    const res = await p.api.post("/segments", { name: "Bad", filters });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("five levels of nesting are fine", async () => {
    expect((await p.api.post("/segments", { name: "Deep", filters: deep(5) })).status).toBe(201);
  });

  it("a cycle, directly or through another segment, at create or on update", async () => {
    const { body: a } = await p.api.post("/segments", { name: "A", filters: where("subscribed", "equals", true) });
    const { body: b } = await p.api.post("/segments", { name: "B", filters: where(`segment.${a.id}`, "memberOfSegment") });
    const self = await p.api.patch(`/segments/${a.id}`, { filters: where(`segment.${a.id}`, "notMemberOfSegment") });
    expectError(self, 400, "VALIDATION_ERROR");
    expect(self.body.details).toEqual([{ path: "filters.groups.0.filters.0.field", message: expect.stringContaining("cycle") }]);
    const loop = await p.api.patch(`/segments/${a.id}`, {
      filters: { logic: "OR", groups: [{ filters: [{ field: "subscribed", operator: "equals", value: false }] }, where(`segment.${b.id}`, "memberOfSegment").groups[0]] },
    });
    expectError(loop, 400, "VALIDATION_ERROR");
    expect(loop.body.details).toEqual([{ path: "filters.groups.1.filters.0.field", message: expect.stringContaining("cycle") }]);
    expect((await p.api.get(`/segments/${a.id}`)).body.filters).toEqual(where("subscribed", "equals", true));
  });

  it("the other body fields too", async () => {
    expectError(await p.api.post("/segments", { filters: where("subscribed", "equals", true) }), 400, "VALIDATION_ERROR");
    expectError(await p.api.post("/segments", { name: " ", filters: where("subscribed", "equals", true) }), 400, "VALIDATION_ERROR");
    expectError(await p.api.post("/segments", { name: "No filters" }), 400, "VALIDATION_ERROR");
    expectError(await p.api.post("/segments", { name: "T", filters: where("subscribed", "equals", true), trackMembership: "yes" }), 400, "VALIDATION_ERROR");
  });
});
