import { beforeAll, describe, expect, it } from "vitest";
import { newProject } from "@mailroom/testkit/shared";
import { expectError } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
const COUNT = 250;
const created: string[] = [];

/** Runs `fn` over `items` with at most `n` in flight (the gateway is shared with other test files). */
async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(Array.from({ length: n }, async () => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) await fn(t);
  }));
}

beforeAll(async () => {
  [p, other] = await Promise.all([newProject("paging"), newProject("paging-other")]);
  await pool([...Array(COUNT).keys()], 8, async (i) => {
    const email = i % 50 === 0 ? `Needle_${i}@Example.com` : `member-${String(i).padStart(3, "0")}@paging.test`;
    const res = await p.api.post("/contacts", { email });
    expect(res.status).toBe(201);
    created.push(res.body.id);
  });
  await other.api.post("/contacts", { email: "someone@other.test" });
}, 120_000);

describe("GET /contacts pagination", () => {
  it(`walks all ${COUNT} contacts exactly once; total on the first page only`, async () => {
    const seen: string[] = [];
    const pages: Array<{ n: number; total: number; hasMore: boolean; cursor: string | null }> = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await p.api.get(`/contacts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((c: any) => c.id));
      pages.push({ n: res.body.data.length, total: res.body.total, hasMore: res.body.hasMore, cursor: res.body.cursor });
      cursor = res.body.cursor;
    } while (cursor);
    expect(pages.map((x) => x.n)).toEqual([100, 100, 50]);
    expect(pages.map((x) => x.total)).toEqual([COUNT, 0, 0]);
    expect(pages.map((x) => x.hasMore)).toEqual([true, true, false]);
    expect(pages.at(-1)!.cursor).toBeNull();
    expect(new Set(seen).size).toBe(COUNT);
    expect([...seen].sort()).toEqual([...created].sort());
  });

  it("defaults to 20 per page", async () => {
    const res = await p.api.get("/contacts");
    expect(res.body.data).toHaveLength(20);
    expect(res.body).toMatchObject({ hasMore: true, total: COUNT, cursor: expect.any(String) });
  });

  it("an exact page end has hasMore false and a null cursor", async () => {
    const res = await p.api.get(`/contacts?limit=100&search=${encodeURIComponent("needle_")}`);
    expect(res.body).toMatchObject({ hasMore: false, cursor: null, total: 5 });
  });

  it.each(["0", "101", "-1", "abc", "1.5"])("limit=%s is a 400", async (limit) => {
    expectError(await p.api.get(`/contacts?limit=${limit}`), 400, "VALIDATION_ERROR");
  });
});

describe("GET /contacts?search", () => {
  it("is a case-insensitive substring of the email, counted in total", async () => {
    const res = await p.api.get(`/contacts?search=NEEDLE_1`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.email).sort()).toEqual(["Needle_100@Example.com", "Needle_150@Example.com"]);
    expect(res.body.total).toBe(2);
  });

  it("treats LIKE wildcards literally", async () => {
    expect((await p.api.get(`/contacts?search=${encodeURIComponent("%")}`)).body).toMatchObject({ data: [], total: 0 });
    // `_` would match any character as a pattern; literally only the five needles have one.
    expect((await p.api.get(`/contacts?search=_&limit=100`)).body.total).toBe(5);
  });

  it("pages through search results with the cursor", async () => {
    const first = await p.api.get(`/contacts?search=example.com&limit=3`);
    expect(first.body).toMatchObject({ total: 5, hasMore: true });
    const second = await p.api.get(`/contacts?search=example.com&limit=3&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(second.body).toMatchObject({ total: 0, hasMore: false, cursor: null });
    expect(second.body.data).toHaveLength(2);
  });
});

describe("cursors", () => {
  it.each([
    ["garbage", () => Promise.resolve("garbage")],
    ["a forged id", async () => `${Buffer.from(JSON.stringify({ id: created[0] })).toString("base64url")}.AAAAAAAAAAAAAAAAAAAAAA`],
    ["another project's cursor", async () => {
      await other.api.post("/contacts", { email: "second@other.test" });
      return (await other.api.get("/contacts?limit=1")).body.cursor as string;
    }],
  ])("%s is a 400, never a 500 or another project's rows", async (_what, make) => {
    const res = await p.api.get(`/contacts?cursor=${encodeURIComponent(await make())}`);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.reason).toBe("invalid_cursor");
  });
});
