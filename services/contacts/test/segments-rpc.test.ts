import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { newProject } from "@mailroom/testkit/shared";
import { Bus, uniqueEmail } from "./helpers.js";

/** contacts.page with segmentId / filter (campaign audiences) and contacts.segments.validateFilter. */
type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
let bus: Bus;
const tag = `rpc-${randomUUID().slice(0, 8)}`;
const ids: string[] = [];
const byTag = { logic: "AND", groups: [{ filters: [{ field: "data.tag", operator: "equals", value: tag }] }] };
const even = { logic: "AND", groups: [{ filters: [{ field: "data.n", operator: "in", value: [0, 2, 4, 6] }] }] };

beforeAll(async () => {
  [p, other, bus] = await Promise.all([newProject("segments-rpc"), newProject("segments-rpc-2"), Bus.open()]);
  for (let n = 0; n < 7; n++) {
    // n = 3 is unsubscribed
    ids.push((await p.api.post("/contacts", { email: uniqueEmail("r"), subscribed: n !== 3, data: { tag, n } })).body.id);
  }
  await p.api.post("/contacts", { email: uniqueEmail("r"), data: { tag: "someone-else", n: 0 } });
});
afterAll(() => bus?.close());

/** Every page of contacts.page, following nextAfterId. */
async function pages(req: Record<string, unknown>): Promise<string[][]> {
  const out: string[][] = [];
  let afterId: string | undefined;
  do {
    const reply = await bus.rpc("contacts.page", { projectId: p.id, limit: 2, subscribedOnly: false, ...req, ...(afterId ? { afterId } : {}) });
    expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
    out.push(reply.result.contacts.map((c: { id: string }) => c.id));
    afterId = reply.result.nextAfterId ?? undefined;
  } while (afterId);
  return out;
}

describe("contacts.page narrows to a segment or a filter, keyset by id", () => {
  it.each([false, true])("segmentId (tracked: %s), subscribed only when asked", async (trackMembership) => {
    const { body: s } = await p.api.post("/segments", { name: `Rpc ${trackMembership}`, filters: byTag, trackMembership });
    expect((await pages({ segmentId: s.id })).flat()).toEqual(ids);
    const subscribed = await pages({ segmentId: s.id, subscribedOnly: true });
    expect(subscribed.flat()).toEqual(ids.filter((_, n) => n !== 3));
    expect(subscribed.every((page) => page.length <= 2)).toBe(true);
    expect((await pages({ segmentId: s.id, filter: even })).flat()).toEqual([ids[0], ids[2], ids[4], ids[6]]);
  });

  it("filter alone, and both", async () => {
    expect((await pages({ filter: byTag, subscribedOnly: true })).flat()).toEqual(ids.filter((_, n) => n !== 3));
    const { body: s } = await p.api.post("/segments", { name: "Rpc evens", filters: even });
    const viaRef = { logic: "AND", groups: [{ filters: [{ field: `segment.${s.id}`, operator: "memberOfSegment" }, { field: "data.tag", operator: "equals", value: tag }] }] };
    expect((await pages({ filter: viaRef })).flat()).toEqual([ids[0], ids[2], ids[4], ids[6]]);
  });

  it("another project's segment is NOT_FOUND; a filter naming it is a VALIDATION_ERROR at its path", async () => {
    const { body: theirs } = await other.api.post("/segments", { name: "Theirs", filters: byTag });
    const bySegment = await bus.rpc("contacts.page", { projectId: p.id, limit: 10, subscribedOnly: false, segmentId: theirs.id });
    expect(bySegment).toMatchObject({ ok: false, error: { error: "NOT_FOUND" } });
    const filter = { logic: "AND", groups: [{ filters: [{ field: `segment.${theirs.id}`, operator: "memberOfSegment" }] }] };
    const byFilter = await bus.rpc("contacts.page", { projectId: p.id, limit: 10, subscribedOnly: false, filter });
    expect(byFilter).toMatchObject({ ok: false, error: { error: "VALIDATION_ERROR", details: [{ path: "filter.groups.0.filters.0.field" }] } });
  });
});

describe("contacts.segments.validateFilter", () => {
  it("answers problems as values, with paths under the request's fields", async () => {
    const { body: mine } = await p.api.post("/segments", { name: "Valid", filters: byTag });
    const { body: theirs } = await other.api.post("/segments", { name: "Foreign", filters: byTag });
    const ref = (id: string) => ({ logic: "AND", groups: [{ filters: [{ field: `segment.${id}`, operator: "memberOfSegment" }] }] });

    const ok = await bus.rpc("contacts.segments.validateFilter", { projectId: p.id, segmentId: mine.id, filter: ref(mine.id), condition: { field: `segment.${mine.id}`, operator: "memberOfSegment" } });
    expect(ok).toEqual({ ok: true, result: { valid: true, details: [] } });

    const bad = await bus.rpc("contacts.segments.validateFilter", {
      projectId: p.id,
      segmentId: theirs.id,
      filter: ref(theirs.id),
      condition: { field: `segment.${theirs.id}`, operator: "notMemberOfSegment" },
    });
    expect(bad.result.valid).toBe(false);
    expect(bad.result.details.map((d: { path: string }) => d.path)).toEqual(["segmentId", "filter.groups.0.filters.0.field", "condition.field"]);

    const shape = await bus.rpc("contacts.segments.validateFilter", { projectId: p.id, filter: { logic: "AND", groups: [{ filters: [{ field: "nope", operator: "equals", value: 1 }] }] } });
    expect(shape).toMatchObject({ ok: false, error: { error: "VALIDATION_ERROR", details: [{ path: "filter.groups.0.filters.0.field" }] } });
  });
});
