import { beforeAll, describe, expect, it } from "vitest";
import { newProject } from "@mailroom/testkit/shared";
import { expectError, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject("builder-api"), newProject("builder-other")]);
});

const where = (field: string, operator: string, value?: unknown) => ({
  logic: "AND",
  groups: [{ filters: [{ field, operator, ...(value === undefined ? {} : { value }) }] }],
});

describe("what a filter builder asks (POST /segments/count, GET /contacts/data-keys)", () => {
  it("counts the contacts a filter matches now, equal to a saved segment's memberCount, saving nothing", async () => {
    const tag = uniqueEmail("t").slice(2, 10);
    for (const plan of ["pro", "pro", "free"]) await p.api.post("/contacts", { email: uniqueEmail("c"), data: { tag, plan } });
    await other.api.post("/contacts", { email: uniqueEmail("o"), data: { tag, plan: "pro" } });
    const filters = { logic: "AND", groups: [{ filters: [{ field: "data.tag", operator: "equals", value: tag }] }, { filters: [], conditions: { logic: "OR", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }, { filters: [{ field: "data.plan", operator: "equals", value: "gold" }] }] } }] };

    const counted = await p.api.post("/segments/count", { filters });
    expect(counted.status).toBe(200);
    expect(counted.body).toEqual({ count: 2 });
    expect((await p.api.get("/segments")).body).toEqual([]);
    const saved = await p.api.post("/segments", { name: "Pro", filters });
    expect(saved.body.memberCount).toBe(2);
    expect((await p.api.post("/segments/count", { filters: where(`segment.${saved.body.id}`, "memberOfSegment") })).body).toEqual({ count: 2 });
  });

  it("refuses a bad filter at its field and another project's segment", async () => {
    expectError(await p.api.post("/segments/count", { filters: where("data.plan", "within", 3) }), 400, "VALIDATION_ERROR");
    expectError(await p.api.post("/segments/count", {}), 400, "VALIDATION_ERROR");
    const foreign = await other.api.post("/segments", { name: "Theirs", filters: where("subscribed", "equals", true) });
    const res = await p.api.post("/segments/count", { filters: where(`segment.${foreign.body.id}`, "memberOfSegment") });
    expectError(res, 400, "VALIDATION_ERROR");
  });

  it("lists the data keys seen in the project, nested ones by their dotted path", async () => {
    const fresh = await newProject("builder-keys");
    expect((await fresh.api.get("/contacts/data-keys")).body).toEqual({ data: [] });
    await fresh.api.post("/contacts", { email: uniqueEmail("k"), data: { plan: "pro", company: { size: 12 } } });
    await fresh.api.post("/contacts", { email: uniqueEmail("k"), data: { plan: "free", tags: ["a"] } });
    const res = await fresh.api.get("/contacts/data-keys");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: ["company.size", "plan", "tags"] });
    expect((await other.api.get("/contacts/data-keys")).body.data).not.toContain("company.size");
  });
});
