import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContactImport } from "@mailroom/contracts";
import { newProject, rawRequest, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
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
async function importCsv(csv: string, project = p, query = ""): Promise<ContactImport> {
  const res = await project.api.post(`/contacts/imports${query}`, csv, csvHeaders);
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

  it("numbers rows the CSV parser could not read in file order, quoted line breaks included", async () => {
    const [a, b] = [uniqueEmail("quoted"), uniqueEmail("after")];
    const csv = ["email,note", `${a},"two\nlines"`, "bad-row-without-address,x", `${b},fine`, `"${uniqueEmail("open")},unclosed`].join("\n");
    const done = await importCsv(csv);
    expect(done).toMatchObject({ status: "COMPLETED", rows: 4, created: 2, failed: 2 });
    expect(done.errors).toEqual([
      { row: 3, message: "email: must be a valid email address" },
      { row: 5, message: "a quoted field is not closed before the end of the file" },
    ]);
    expect(await contactByEmail(a)).toMatchObject({ data: { note: "two\nlines" } });
  });

  it("fails a file without an email column, at row 1", async () => {
    const done = await importCsv("name,plan\nAda,pro\n");
    expect(done).toMatchObject({ status: "FAILED", errors: [{ row: 1, message: "the header has no email column" }] });
  });

  it("refuses another content type with 400, and a body past the limit with 413, declared or streamed", async () => {
    expectError(await p.api.post("/contacts/imports", { email: "a@b.co" }), 400, "VALIDATION_ERROR");
    const limit = Number(sharedPlatform().env.CONTACT_IMPORT_MAX_BYTES);
    expect(limit).toBeGreaterThan(0);
    // a raw socket, as a large upload goes out: the answer is read whenever it comes, even while
    // the client is still writing (the gateway answers early and closes)
    const upload = (chunked: boolean) =>
      rawRequest(sharedPlatform().url, {
        method: "POST",
        path: "/contacts/imports",
        headers: { authorization: `Bearer ${p.secretKey}`, "content-type": "text/csv" },
        bytes: limit + 64 * 1024,
        chunked,
      });
    const declared = await upload(false);
    expect(declared.status).toBe(413);
    expect(declared.sent, "refused on its Content-Length, before the body").toBe(0);
    expect(JSON.parse(declared.body)).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
    const chunked = await upload(true);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
  });

  it("refuses a project's fourth import while three are running or waiting (429), and takes one again after", async () => {
    const project = await newProject("imports-pending");
    // one import of a project runs at a time: a large first one keeps the next ones waiting
    const big = ["email,plan", ...Array.from({ length: 20_000 }, (_, i) => `big${i}-${tagged()}@example.com,x`)].join("\n");
    const small = () => `email\n${uniqueEmail("small")}\n`;
    const first = await project.api.post("/contacts/imports", big, csvHeaders);
    expect(first.status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await project.api.post("/contacts/imports", small(), csvHeaders)).status).toBe(202);
    const refused = await project.api.post("/contacts/imports", small(), csvHeaders);
    expectError(refused, 429, "RATE_LIMITED");
    expect(refused.body.reason).toBe("imports_pending");
    // another project is not affected
    expect((await other.api.post("/contacts/imports", small(), csvHeaders)).status).toBe(202);
    await waitFor(async () => (await project.api.get(`/contacts/imports/${first.body.id}`)).body.status === "COMPLETED", {
      what: "the large import to end",
      timeoutMs: 60_000,
    });
    await importCsv(small(), project);
  });

  it("refuses an upload before reading its body while the project has its pending imports", async () => {
    const project = await newProject("imports-full");
    const big = ["email,plan", ...Array.from({ length: 20_000 }, (_, i) => `full${i}-${tagged()}@example.com,x`)].join("\n");
    expect((await project.api.post("/contacts/imports", big, csvHeaders)).status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await project.api.post("/contacts/imports", `email\n${uniqueEmail("full")}\n`, csvHeaders)).status).toBe(202);
    const refused = await rawRequest(sharedPlatform().url, {
      method: "POST",
      path: "/contacts/imports",
      headers: { authorization: `Bearer ${project.secretKey}`, "content-type": "text/csv" },
      bytes: 512 * 1024,
    });
    expect(refused.status).toBe(429);
    expect(refused.sent, "refused before a byte of the body").toBe(0);
    expect(JSON.parse(refused.body)).toMatchObject({ error: "RATE_LIMITED", reason: "imports_pending" });
  });

  it("takes as many parallel uploads as the project has places for, and refuses the others before their bodies", async () => {
    const project = await newProject("imports-parallel");
    const uploads = await Promise.all(
      Array.from({ length: 6 }, () =>
        rawRequest(sharedPlatform().url, {
          method: "POST",
          path: "/contacts/imports",
          headers: { authorization: `Bearer ${project.secretKey}`, "content-type": "text/csv" },
          bytes: 256 * 1024,
        }),
      ),
    );
    expect(uploads.map((u) => u.status).sort()).toEqual([202, 202, 202, 429, 429, 429]);
    for (const u of uploads.filter((u) => u.status === 429)) expect(u.sent).toBe(0);
  });

  it("opts every row into the topics of ?topics=, with topic events, and refuses a topic that is not the project's", async () => {
    const news = (await p.api.post("/topics", { name: `News ${tagged()}` })).body.id as string;
    const digest = (await p.api.post("/topics", { name: `Digest ${tagged()}`, defaultSubscribed: true })).body.id as string;
    const [fresh, existing] = [uniqueEmail("topic-new"), uniqueEmail("topic-old")];
    const { body: old } = await p.api.post("/contacts", { email: existing, topics: { [news]: false, [digest]: false } });
    const done = await importCsv(`email,plan\n${fresh},pro\n${existing},pro\n`, p, `?topics=${news},${digest}`);
    expect(done).toMatchObject({ status: "COMPLETED", rows: 2, created: 1, updated: 1, failed: 0, awaitingConfirmation: 0 });
    expect((await contactByEmail(fresh)).topics).toEqual({ [news]: true, [digest]: true });
    expect((await p.api.get(`/contacts/${old.id}`)).body).toMatchObject({ topics: { [news]: true, [digest]: true }, data: { plan: "pro" } });
    // both of the existing contact's choices flipped: an event each
    const events = await bus.waitFor(() => bus.events(p.id, "contact"), (e) => e.contactId === old.id && e.name === "contact.topic.subscribed", 2);
    expect(new Set(events.map((e) => e.data.topicId))).toEqual(new Set([news, digest]));

    const theirs = (await other.api.post("/topics", { name: "Theirs" })).body.id as string;
    const address = uniqueEmail("topic-refused");
    const refused = await p.api.post(`/contacts/imports?topics=${news},${theirs}`, `email\n${address}\n`, csvHeaders);
    expectError(refused, 400, "VALIDATION_ERROR");
    expect(refused.body.details).toEqual([{ path: "query.topics", message: `${theirs} is not a topic of this project` }]);
    const notIds = await p.api.post(`/contacts/imports?topics=${"x".repeat(201)}`, `email\n${address}\n`, csvHeaders);
    expectError(notIds, 400, "VALIDATION_ERROR");
    expect(notIds.body.details[0].path).toBe("query.topics");
    expect(await contactByEmail(address)).toBeUndefined();
  });

  it("reads a file the same whether PostgreSQL parses it or csv-parse does", async () => {
    const [viaCopy, viaParser] = await Promise.all([newProject("imports-copy"), newProject("imports-parser")]);
    const [a, b, c, d] = [uniqueEmail("copy-a"), uniqueEmail("copy-b"), uniqueEmail("copy-c").toUpperCase(), uniqueEmail("copy-d")];
    const rows = [
      `${a},yes,pro,plain`,
      `  ${b}  ,NO,free,`, // trimmed, as stageRow does
      `${c},,team,caf\u00e9 \\ back`,
      "not-an-address,yes,pro,x", // row 5
      `${d},maybe,pro,x`, // row 6
      `${a},no,enterprise,again`,
      `${d.toUpperCase()},TRUE,,`,
      ` ${a} ,,free,last`, // the last row of a wins
    ];
    const copyable = ["email,subscribed,plan,note", ...rows].join("\n");
    // the same records, one cell quoted: PostgreSQL parses no file with a quote
    const quoted = copyable.replace(",team,", ',"team",');
    const [copied, parsed] = await Promise.all([importCsv(copyable, viaCopy), importCsv(quoted, viaParser)]);
    const expected = {
      status: "COMPLETED",
      rows: 8,
      created: 4,
      updated: 0,
      failed: 2,
      errors: [
        { row: 5, message: "email: must be a valid email address" },
        { row: 6, message: "subscribed: must be true or false (or yes/no, 1/0, empty)" },
      ],
    };
    expect(copied).toMatchObject(expected);
    expect(parsed).toMatchObject(expected);
    for (const email of [a, b, c, d]) {
      const [x, y] = await Promise.all([contactByEmail(email, viaCopy), contactByEmail(email, viaParser)]);
      expect(x, email).toBeDefined();
      expect({ email: x.email, subscribed: x.subscribed, data: x.data }).toEqual({ email: y.email, subscribed: y.subscribed, data: y.data });
    }
    expect(await contactByEmail(a, viaCopy)).toMatchObject({ email: a, subscribed: true, data: { plan: "free", note: "last" } });
    expect(await contactByEmail(b, viaCopy)).toMatchObject({ email: b, subscribed: false, data: { plan: "free" } });
    expect(await contactByEmail(c, viaCopy)).toMatchObject({ email: c, data: { plan: "team", note: "caf\u00e9 \\ back" } });
    expect(await contactByEmail(d, viaCopy)).toMatchObject({ email: d.toUpperCase(), subscribed: true, data: {} });
  });

  it("numbers rows as csv-parse does in files PostgreSQL would read otherwise", async () => {
    const [a, b, c] = [uniqueEmail("end-a"), uniqueEmail("end-b"), uniqueEmail("end-c")];
    // a short last row, refused by PostgreSQL only after the file's last byte
    expect(await importCsv(`email,plan\n${a},pro\n${b}`)).toMatchObject({
      status: "COMPLETED",
      rows: 2,
      created: 1,
      failed: 1,
      errors: [{ row: 3, message: "the row has 1 fields where the header has 2" }],
    });
    // an empty line (skipped, not counted) and `\.` (PostgreSQL's end of data; here a bad address)
    expect(await importCsv(`email\n${c}\n\n\\.\n${uniqueEmail("end-d")}\n`)).toMatchObject({
      status: "COMPLETED",
      rows: 3,
      created: 2,
      failed: 1,
      errors: [{ row: 3, message: "email: must be a valid email address" }],
    });
  });

  it("answers 404 for another project's import", async () => {
    const res = await p.api.post("/contacts/imports", `email\n${uniqueEmail("own")}\n`, csvHeaders);
    expectError(await other.api.get(`/contacts/imports/${res.body.id}`), 404, "NOT_FOUND");
  });
});
