import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import type { Contact } from "@mailroom/contracts";
import { newProject, waitFor } from "@mailroom/testkit/shared";
import { expectError } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
const tag = `t-${randomUUID().slice(0, 8)}`;
/** Enough rows, with a long cell each, that the export takes several chunks. */
const ROWS = 1500;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject("exports"), newProject("exports-other")]);
  const lines = Array.from({ length: ROWS }, (_, i) => `x${i}-${tag}@example.com,${i % 3 === 0 ? "pro" : "free"},${i % 7 === 0 ? "no" : "yes"},"bio, ${"z".repeat(200)}"`);
  const res = await p.api.post("/contacts/imports", ["email,plan,subscribed,bio", ...lines].join("\n"), { "content-type": "text/csv" });
  expect(res.status).toBe(202);
  await waitFor(async () => (await p.api.get(`/contacts/imports/${res.body.id}`)).body.status === "COMPLETED", { what: "the seed import", timeoutMs: 30_000 });
  // contacts written through the API too, one with a structured value and one without data
  await p.api.post("/contacts", { email: `api-${tag}@example.com`, data: { plan: "pro", score: 7, tags: ["a", "b"] } });
  await p.api.post("/contacts", { email: `bare-${tag}@example.com`, subscribed: false });
});

/** Every page of a contact list route, in its order. */
async function allPages(path: string, project = p): Promise<Contact[]> {
  const out: Contact[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res: { status: number; body: { data: Contact[]; cursor: string | null } } = await project.api.get(
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.cursor;
  } while (cursor);
  return out;
}

/** The export as records keyed by its header, and the header itself. */
async function exported(query = "", project = p) {
  const res = await project.api.get(`/contacts/export${query}`);
  expect(res.status, String(res.body)).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
  const [header, ...rows] = parse(res.body as string) as string[][];
  return { header: header!, records: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))) };
}

/** A contact as the export writes it: strings, "" for a missing key, JSON for structured values. */
function asRow(c: Contact, keys: string[]): Record<string, string> {
  const cell = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));
  return { email: c.email, subscribed: String(c.subscribed), createdAt: c.createdAt, ...Object.fromEntries(keys.map((k) => [k, cell(c.data[k])])) };
}

describe("GET /contacts/export", () => {
  it("streams every contact of GET /contacts, with one column per data key", async () => {
    const [{ header, records }, listed] = await Promise.all([exported(), allPages("/contacts")]);
    expect(header).toEqual(["email", "subscribed", "createdAt", "bio", "plan", "score", "tags"]);
    expect(records).toHaveLength(ROWS + 2);
    const keys = header.slice(3);
    const byEmail = (rows: Array<Record<string, string>>) => [...rows].sort((a, b) => a.email!.localeCompare(b.email!));
    expect(byEmail(records)).toEqual(byEmail(listed.map((c) => asRow(c, keys))));
    expect(records.find((r) => r.email === `api-${tag}@example.com`)).toMatchObject({ score: "7", tags: '["a","b"]', bio: "" });
  });

  it("streams a segment's members, tracked or not, as GET /segments/{id}/contacts lists them", async () => {
    const filters = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] };
    for (const trackMembership of [true, false]) {
      const { body: s } = await p.api.post("/segments", { name: `Pro ${trackMembership}`, filters, trackMembership });
      const [{ records }, members] = await Promise.all([exported(`?segmentId=${s.id}`), allPages(`/segments/${s.id}/contacts`)]);
      expect(records.length).toBe(members.length);
      expect(members.length).toBe(Math.ceil(ROWS / 3) + 1);
      expect(new Set(records.map((r) => r.email))).toEqual(new Set(members.map((c) => c.email)));
    }
  });

  it("answers 404 for another project's segment, and a header alone for a project without contacts", async () => {
    const { body: s } = await other.api.post("/segments", { name: "Theirs", filters: { logic: "AND", groups: [{ filters: [{ field: "subscribed", operator: "equals", value: true }] }] } });
    expectError(await p.api.get(`/contacts/export?segmentId=${s.id}`), 404, "NOT_FOUND");
    expectError(await p.api.get("/contacts/export?segmentId=nope"), 404, "NOT_FOUND");
    const empty = await exported("", other);
    expect(empty).toEqual({ header: ["email", "subscribed", "createdAt"], records: [] });
  });

  it("hands a spreadsheet no formula a public key wrote: such cells and headers start with '", async () => {
    const q = await newProject("exports-formulas");
    const email = `formula-${tag}@example.com`;
    const data = { company: '=HYPERLINK("https://evil.example/x","Click")', "@cmd": "+1+cmd|' /C calc'!A0", score: "-12.5", plain: "Ada" };
    expect((await q.publicApi.post("/v1/track", { email, event: "signup", data })).status).toBe(200);
    const { header, records } = await exported("", q);
    expect(header).toEqual(["email", "subscribed", "createdAt", "'@cmd", "company", "plain", "score"]);
    expect(records[0]).toMatchObject({
      email,
      company: `'${data.company}`,
      "'@cmd": `'${data["@cmd"]}`,
      score: "-12.5",
      plain: "Ada",
    });
  });
});

