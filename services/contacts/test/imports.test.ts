import http from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContactImport } from "@mailroom/contracts";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { Bus, expectError, uniqueEmail } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
let bus: Bus;

beforeAll(async () => {
  [p, other, bus] = await Promise.all([newProject("imports"), newProject("imports-other"), Bus.open()]);
});
afterAll(async () => {
  await bus?.close();
});

const tagged = () => `t-${randomUUID().slice(0, 8)}`;
const csvHeaders = { "content-type": "text/csv" };

/** Posts a CSV body and waits for the import to end; answers its final record. */
async function importCsv(csv: string, project = p): Promise<ContactImport> {
  const res = await project.api.post("/contacts/imports", csv, csvHeaders);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toEqual({ id: expect.any(String), status: "RUNNING" });
  return waitFor(
    async () => {
      const r = await project.api.get(`/contacts/imports/${res.body.id}`);
      return r.body.status === "RUNNING" ? null : (r.body as ContactImport);
    },
    { what: "the import to end", timeoutMs: 20_000, intervalMs: 100 },
  );
}

async function contactByEmail(email: string, project = p) {
  const res = await project.api.get(`/contacts?search=${encodeURIComponent(email)}`);
  return res.body.data.find((c: { email: string }) => c.email.toLowerCase() === email.toLowerCase());
}

async function trackedSegment(name: string, field: string, value: string, project = p) {
  const filters = { logic: "AND", groups: [{ filters: [{ field, operator: "equals", value }] }] };
  const res = await project.api.post("/segments", { name, filters, trackMembership: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string };
}

describe("POST /contacts/imports", () => {
  it("imports the good rows of a 10-row file, reports the two bad ones, and emits tracked segments' entries", async () => {
    const tag = tagged();
    const s = await trackedSegment(`Importers ${tag}`, "data.plan", tag);
    const emails = Array.from({ length: 10 }, () => uniqueEmail("imp"));
    const rows = emails.map((e, i) => `${e},${i % 2 === 0 ? tag : "free"},City ${i}`);
    rows[2] = "not-an-address,x,y"; // row 4 of the file (the header is row 1)
    rows[6] = `${emails[6]},only-two-fields`; // row 8
    const done = await importCsv(["email,plan,city", ...rows].join("\n"));
    expect(done).toMatchObject({ status: "COMPLETED", rows: 10, created: 8, updated: 0, failed: 2 });
    expect(done.errors).toEqual([
      { row: 4, message: "email: must be a valid email address" },
      { row: 8, message: "the row has 2 fields where the header has 3" },
    ]);

    const imported = emails.filter((_, i) => i !== 2 && i !== 6);
    const first = await contactByEmail(imported[0]!);
    expect(first).toMatchObject({ subscribed: true, data: { plan: tag, city: "City 0" } });
    expect(await contactByEmail(emails[6]!)).toBeUndefined();

    // rows 0, 4 and 8 carry the tag (2 and 6 were the bad rows): three entries, nothing else
    const entered = new Set([0, 4, 8].map((i) => emails[i]));
    const entries = await bus.waitFor(() => bus.events(p.id, "segment"), (e) => e.data.segmentId === s.id, 3);
    expect(entries.map((e) => e.name)).toEqual(Array(3).fill(`segment.${s.slug}.entry`));
    expect(new Set(entries.map((e) => e.email))).toEqual(entered);
    expect((await p.api.get(`/segments/${s.id}`)).body.memberCount).toBe(3);
  });

  it("keeps the last row of an address given twice in one file", async () => {
    const email = uniqueEmail("dup");
    const csv = ["email,plan,subscribed", `${email},first,yes`, `${email.toUpperCase()},second,no`, `${email},last,`].join("\r\n");
    const done = await importCsv(csv);
    // the two superseded rows count in none of created, updated and failed
    expect(done).toMatchObject({ status: "COMPLETED", rows: 3, created: 1, updated: 0, failed: 0, errors: [] });
    const found = await p.api.get(`/contacts?search=${encodeURIComponent(email)}`);
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0]).toMatchObject({ email, subscribed: true, data: { plan: "last" } });
  });

  it("updates existing contacts by the data rules of POST /contacts, with their subscription events", async () => {
    const email = uniqueEmail("existing");
    const { body: before } = await p.api.post("/contacts", { email, data: { plan: "free", keep: "kept" } });
    const done = await importCsv(["email,subscribed,plan,keep,id", `${email},false,pro,,forged-id`].join("\n"));
    expect(done).toMatchObject({ status: "COMPLETED", rows: 1, created: 0, updated: 1, failed: 0 });
    const after = (await p.api.get(`/contacts/${before.id}`)).body;
    // an empty cell overwrites nothing, a reserved key is dropped
    expect(after).toMatchObject({ id: before.id, email, subscribed: false, data: { plan: "pro", keep: "kept" } });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    const [event] = await bus.waitFor(() => bus.events(p.id, "contact"), (e) => e.contactId === before.id && e.name === "contact.unsubscribed");
    expect(event).toMatchObject({ email, data: {} });
  });

  it("fails a file without an email column, at row 1", async () => {
    const done = await importCsv("name,plan\nAda,pro\n");
    expect(done).toMatchObject({ status: "FAILED", errors: [{ row: 1, message: "the header has no email column" }] });
  });

  it("refuses another content type with 400, and a body past the limit with 413, declared or streamed", async () => {
    expectError(await p.api.post("/contacts/imports", { email: "a@b.co" }), 400, "VALIDATION_ERROR");
    const limit = Number(sharedPlatform().env.CONTACT_IMPORT_MAX_BYTES);
    expect(limit).toBeGreaterThan(0);
    const declared = await rawPost(p.secretKey, limit + 1, true);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
    const chunked = await rawPost(p.secretKey, limit + 64 * 1024, false);
    expect(chunked.status).toBe(413);
  });

  it("answers 404 for another project's import", async () => {
    const res = await p.api.post("/contacts/imports", `email\n${uniqueEmail("own")}\n`, csvHeaders);
    expectError(await other.api.get(`/contacts/imports/${res.body.id}`), 404, "NOT_FOUND");
  });
});

/**
 * Sends `bytes` of CSV the way a large upload goes out (with or without Content-Length), in pieces,
 * and stops sending once the answer arrives: the gateway answers past the limit without reading on.
 */
function rawPost(key: string, bytes: number, declareLength: boolean): Promise<{ status: number; body: string }> {
  const url = new URL("/contacts/imports", sharedPlatform().url);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv", ...(declareLength ? { "content-length": String(bytes) } : {}) },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", (err) => (answered ? undefined : reject(err)));
    const line = `${"x".repeat(60)}@example.com\n`;
    const piece = Buffer.from(line.repeat(Math.ceil(16_384 / line.length)));
    let sent = 0;
    const pump = () => {
      while (!answered && sent < bytes) {
        const part = piece.subarray(0, Math.min(piece.length, bytes - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    req.write("email\n");
    sent += 6;
    pump();
  });
}
