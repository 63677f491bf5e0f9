import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { Bus, expectError, uniqueEmail } from "./helpers.js";

/**
 * A project holds at most 2,000 distinct data keys (decisions.md §15): anyone with its public key
 * writes contact data, and every key is a column of every export. A write that would add more is
 * refused on every path that writes contact data, and changes nothing.
 */
type Project = Awaited<ReturnType<typeof newProject>>;
const LIMIT = 2000;
const KEYS_PER_CONTACT = 100; // the most one contact holds (DATA_LIMITS.maxKeys)

/** Contacts that hold keys k0 … k(n-1) between them, 100 to a contact, each value `value(i)`. */
async function withKeys(p: Project, n: number, value = (i: number) => `v${i}`) {
  for (let first = 0; first < n; first += KEYS_PER_CONTACT) {
    const data = Object.fromEntries(Array.from({ length: Math.min(KEYS_PER_CONTACT, n - first) }, (_, j) => [`k${first + j}`, value(first + j)]));
    const res = await p.api.post("/contacts", { email: uniqueEmail("keys"), data });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  }
}

function expectKeyLimit(res: { status: number; body: any }) {
  expectError(res, 400, "VALIDATION_ERROR");
  expect(res.body.reason).toBe("data_keys_limit");
}

describe("a project's data keys", () => {
  let p: Project;
  beforeAll(async () => {
    p = await newProject("data-keys");
    await withKeys(p, LIMIT);
  });

  it("stop at 2,000: a public key's new key is refused and nothing of its call is written", async () => {
    const email = uniqueEmail("over");
    const refused = await p.publicApi.post("/v1/track", { email, event: "over.the.limit", data: { fresh: "=1+1" } });
    expectKeyLimit(refused);
    expect((await p.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data).toEqual([]);
    expect((await p.api.get("/events/names")).body.data).not.toContain("over.the.limit");
    // keys the project has, deletions and one-shot values are still taken
    const within = await p.publicApi.post("/v1/track", { email, event: "within", data: { k7: "x", gone: null, once: { value: 1, persistent: false } } });
    expect(within.status, JSON.stringify(within.body)).toBe(200);
  });

  it("stop at 2,000 on POST and PATCH /contacts and on an import, which change nothing", async () => {
    expectKeyLimit(await p.api.post("/contacts", { email: uniqueEmail("post"), data: { fresh: 1 } }));
    const existing = await p.api.post("/contacts", { email: uniqueEmail("patch"), data: { k1: "one" } });
    expectKeyLimit(await p.api.patch(`/contacts/${existing.body.id}`, { data: { k1: "two", fresh: 2 } }));
    expect((await p.api.get(`/contacts/${existing.body.id}`)).body.data).toEqual({ k1: "one" });
    const imported = await p.api.post("/contacts/imports", `email,k3,fresh\n${uniqueEmail("import")},a,b\n`, { "content-type": "text/csv" });
    expectKeyLimit(imported);
    expect((await p.api.post("/contacts/imports", `email,k3\n${uniqueEmail("import")},a\n`, { "content-type": "text/csv" })).status).toBe(202);
  });

  it("count parallel writes exactly: with one key left, one of two new keys gets it", async () => {
    const q = await newProject("data-keys-race");
    await withKeys(q, LIMIT - 1);
    const answers = await Promise.all(["first", "second"].map((k) => q.publicApi.post("/v1/track", { email: uniqueEmail(k), event: "race", data: { [k]: 1 } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expectKeyLimit(answers.find((a) => a.status === 400)!);
  });
});

describe("the export of a project with many data keys", () => {
  let p: Project;
  let bus: Bus;
  beforeAll(async () => {
    [p, bus] = await Promise.all([newProject("data-keys-export"), Bus.open()]);
    // 2,000 keys, and contacts with long values: an export of several chunks
    await withKeys(p, LIMIT);
    for (let round = 0; round < 3; round++) await withKeys(p, LIMIT, (i) => `${"x".repeat(80)}${i}`);
  });
  afterAll(async () => {
    await bus?.close();
  });

  it("sends its columns once: every chunk's continuation is a few dozen characters, and every row has every column", async () => {
    const continuations: string[] = [];
    const prefix = sharedPlatform().prefix;
    const subs = [`${prefix}.rpc.contacts.export`, `${prefix}.rpcb.contacts.export`].map((subject) =>
      bus.nc.subscribe(subject, {
        callback: (_err, msg) => {
          for (const m of msg.string().matchAll(/"continuation":"((?:[^"\\]|\\.)*)"/g)) continuations.push(m[1]!);
        },
      }),
    );
    const res = await p.api.get("/contacts/export");
    await bus.nc.flush();
    for (const s of subs) s.unsubscribe();
    expect(res.status).toBe(200);
    const [header, ...rows] = parse(res.body as string) as string[][];
    expect(header).toHaveLength(3 + LIMIT);
    expect(rows).toHaveLength(4 * (LIMIT / 100));
    for (const row of rows) expect(row).toHaveLength(3 + LIMIT);
    expect(continuations.length).toBeGreaterThanOrEqual(2);
    for (const c of continuations) expect(c.length).toBeLessThan(200);
  });
});
