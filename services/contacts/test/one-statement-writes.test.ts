// contactsRepo.createOrRead and eventsRepo.insertIfContact: the one-statement writes of a new contact (/v1/track, POST
// /contacts), which must write their event record and outbox rows if and only if they write the rest; and
// contactsRepo.createOrReadMany, /v1/send's create-or-read of its recipients.
import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { openDatabase, outboxRows } from "@mailroom/kit";
import { sharedPlatform } from "@mailroom/testkit/shared";
import { contactsRepo, type ContactRow } from "../src/db/contacts-repo.js";
import { eventsRepo } from "../src/db/events-repo.js";
import { uniqueEmail } from "./helpers.js";

// opened the way the service opens its own: drizzle's serialisers pass JSON text through as given
const url = new URL(sharedPlatform().env.DATABASE_URL!);
url.pathname = `/${sharedPlatform().prefix}_contacts`;
const db = openDatabase(url.toString(), { max: 1 });
afterAll(() => db.end());

const projectId = randomUUID();
const contact = (email: string): ContactRow => {
  const now = new Date();
  return { id: randomUUID(), project_id: projectId, email, subscribed: true, data: { plan: "pro" }, topics: {}, created_at: now, updated_at: now };
};
const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ id: randomUUID(), subject: `test.create-with.${i}`, payload: { i, text: "it's \"quoted\" \\ ünïcode" } }));

describe("contactsRepo.createOrRead", () => {
  it("writes the contact, its event record and its outbox rows in one statement", async () => {
    const row = contact(uniqueEmail("one"));
    const event = { id: randomUUID(), project_id: projectId, contact_id: row.id, name: "signed.up", data: { source: "ad" }, created_at: row.created_at };
    const out = messages(3);
    const created = await contactsRepo.createOrRead(db, row, event, outboxRows(out).json);
    expect(created).toMatchObject({ created: true, row: { id: row.id, email: row.email, subscribed: true, data: { plan: "pro" } } });
    const [stored] = await db`select contact_id, name, data from contact_events where id = ${event.id}`;
    expect(stored).toEqual({ contact_id: row.id, name: "signed.up", data: { source: "ad" } });
    const rows = await db`select id, subject, payload from outbox where id = any(${out.map((m) => m.id)}::uuid[]) order by subject`;
    expect(rows.map((r) => ({ id: r.id, subject: r.subject, payload: r.payload }))).toEqual(out);
    await db`delete from outbox where id = any(${out.map((m) => m.id)}::uuid[])`;
  });

  it("writes nothing at all when the address exists, in any case, and returns that contact", async () => {
    const email = uniqueEmail("taken");
    const first = contact(email);
    expect((await contactsRepo.createOrRead(db, first, null, outboxRows([]).json))?.created).toBe(true);
    const again = contact(email.toUpperCase());
    const event = { id: randomUUID(), project_id: projectId, contact_id: again.id, name: "x", data: {}, created_at: again.created_at };
    const out = messages(2);
    expect(await contactsRepo.createOrRead(db, again, event, outboxRows(out).json)).toMatchObject({ created: false, row: { id: first.id, email } });
    expect(await db`select 1 from contacts where id = ${again.id}`).toHaveLength(0);
    expect(await db`select 1 from contact_events where id = ${event.id}`).toHaveLength(0);
    expect(await db`select 1 from outbox where id = any(${out.map((m) => m.id)}::uuid[])`).toHaveLength(0);
  });

  it("writes nothing when a part fails: the statement is one transaction", async () => {
    const row = contact(uniqueEmail("half"));
    const out = messages(1);
    // an outbox id that is not a uuid fails the outbox insert after the contact's
    const bad = outboxRows(out).json.replace(out[0]!.id, "not-a-uuid");
    await expect(contactsRepo.createOrRead(db, row, null, bad)).rejects.toThrow(/uuid/);
    expect(await db`select 1 from contacts where id = ${row.id}`).toHaveLength(0);
  });
});

describe("contactsRepo.createOrReadMany", () => {
  it("creates the new addresses and reads the existing ones without writing them", async () => {
    const existing = contact(uniqueEmail("there"));
    await contactsRepo.createOrRead(db, existing, null, outboxRows([]).json);
    const newcomers = [contact(uniqueEmail("n1")), contact(uniqueEmail("n2"))];
    const again = contact(existing.email.toUpperCase());
    const read = await contactsRepo.createOrReadMany(db, [newcomers[0]!, again, newcomers[1]!]);
    expect(read.filter((r) => r.created).map((r) => r.row.id).sort()).toEqual(newcomers.map((n) => n.id).sort());
    expect(read.find((r) => !r.created)).toMatchObject({ row: { id: existing.id, email: existing.email } });
    expect(await db`select 1 from contacts where id = ${again.id}`).toHaveLength(0);
  });

  it("creates an address given twice once, and leaves the second out of the answer", async () => {
    const email = uniqueEmail("twice");
    const [first, second] = [contact(email), contact(email.toUpperCase())];
    const read = await contactsRepo.createOrReadMany(db, [first, second]);
    expect(read).toHaveLength(1);
    expect(read[0]).toMatchObject({ created: true, row: { email } });
    expect(await db`select 1 from contacts where project_id = ${projectId} and lower(email) = ${email.toLowerCase()}`).toHaveLength(1);
  });

  it("writes nothing when a part fails", async () => {
    const rows = [contact(uniqueEmail("m1")), contact(uniqueEmail("m2"))];
    // the same id twice: the second row's insert fails after the first's
    await expect(contactsRepo.createOrReadMany(db, [rows[0]!, { ...rows[1]!, id: rows[0]!.id }])).rejects.toThrow(/duplicate key/);
    expect(await db`select 1 from contacts where id = any(${rows.map((r) => r.id)}::uuid[])`).toHaveLength(0);
  });
});

describe("eventsRepo.insertIfContact", () => {
  it("writes the event record and the outbox rows while the contact exists, and nothing once it is gone", async () => {
    const row = contact(uniqueEmail("ev"));
    await contactsRepo.createOrRead(db, row, null, outboxRows([]).json);
    const event = () => ({ id: randomUUID(), project_id: projectId, contact_id: row.id, name: "seen", data: { n: 1 }, created_at: new Date() });
    const first = event();
    const out = messages(2);
    expect(await eventsRepo.insertIfContact(db, first, outboxRows(out).json)).toBe(true);
    expect(await db`select 1 from contact_events where id = ${first.id}`).toHaveLength(1);
    expect(await db`select 1 from outbox where id = any(${out.map((m) => m.id)}::uuid[])`).toHaveLength(2);
    await db`delete from outbox where id = any(${out.map((m) => m.id)}::uuid[])`;

    await db`delete from contacts where id = ${row.id}`;
    const late = event();
    const lost = messages(2);
    expect(await eventsRepo.insertIfContact(db, late, outboxRows(lost).json)).toBe(false);
    expect(await db`select 1 from contact_events where id = ${late.id}`).toHaveLength(0);
    expect(await db`select 1 from outbox where id = any(${lost.map((m) => m.id)}::uuid[])`).toHaveLength(0);
  });

  it("refuses a contact of another project", async () => {
    const row = contact(uniqueEmail("other"));
    await contactsRepo.createOrRead(db, row, null, outboxRows([]).json);
    const foreign = { id: randomUUID(), project_id: randomUUID(), contact_id: row.id, name: "x", data: {}, created_at: new Date() };
    expect(await eventsRepo.insertIfContact(db, foreign, outboxRows(messages(1)).json)).toBe(false);
  });
});
