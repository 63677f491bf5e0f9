import { randomUUID } from "node:crypto";
import postgres from "postgres";
import type { ContactFacts } from "../src/index.js";

const ADMIN_URL = process.env.FILTERS_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** The contacts service's tables as /work/contacts-tables.md lays them out. */
const TABLES = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE contacts (
  id uuid PRIMARY KEY, project_id uuid NOT NULL, email text NOT NULL, subscribed boolean NOT NULL,
  data jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
  topics jsonb NOT NULL DEFAULT '{}');
CREATE UNIQUE INDEX contacts_project_email ON contacts (project_id, lower(email));
CREATE INDEX contacts_project_id ON contacts (project_id, id);
CREATE INDEX contacts_email_trgm ON contacts USING gin (lower(email) gin_trgm_ops);
CREATE TABLE contact_events (
  id uuid PRIMARY KEY, project_id uuid, contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
  name text, data jsonb, created_at timestamptz);
CREATE INDEX contact_events_contact ON contact_events (contact_id, name, created_at);
CREATE INDEX contact_events_project ON contact_events (project_id, name, created_at, contact_id);
CREATE TABLE email_activity (
  project_id uuid, contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE, email_id uuid,
  kind text, occurred_at timestamptz, PRIMARY KEY (email_id, kind));
CREATE INDEX email_activity_contact ON email_activity (contact_id, kind, occurred_at);
CREATE INDEX email_activity_project ON email_activity (project_id, kind, occurred_at, contact_id);
CREATE TABLE segments (
  id uuid PRIMARY KEY, project_id uuid, name text, slug text, filters jsonb, track_membership boolean,
  member_count int, created_at timestamptz, updated_at timestamptz);
CREATE TABLE segment_members (
  segment_id uuid REFERENCES segments(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
  project_id uuid, entered_at timestamptz, PRIMARY KEY (segment_id, contact_id));
`;

/** A contact to insert: its row values plus what the in-memory side needs to rebuild its facts. */
export interface SeedContact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  events: Array<{ name: string; createdAt: string; data?: unknown }>;
  emailActivity: Array<{ kind: string; occurredAt: string }>;
  segments: string[];
  /** The contact's own topic choices (optional: most tests have no topics). */
  topics?: Record<string, boolean>;
}

export interface ScratchDb {
  sql: postgres.Sql;
  /** Inserts one project's contacts and returns their facts as the driver reads them back. */
  seed(projectId: string, contacts: SeedContact[]): Promise<Map<string, ContactFacts>>;
  addSegments(projectId: string, ids: string[]): Promise<void>;
  drop(): Promise<void>;
}

/** A database of its own (created here, dropped by drop()), so runs never see each other's rows. */
export async function scratchDatabase(): Promise<ScratchDb> {
  const name = `filters_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const sql = postgres(url.toString(), { max: 2, onnotice: () => {} });
  await sql.unsafe(TABLES);

  return {
    sql,
    async addSegments(projectId, ids) {
      const rows = ids.map((id) => ({ id, project_id: projectId }));
      await sql`INSERT INTO segments (id, project_id) SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) AS x(id uuid, project_id uuid)`;
    },
    async seed(projectId, contacts) {
      await insertRows(sql, projectId, contacts);
      return readFacts(sql, projectId);
    },
    async drop() {
      await sql.end();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function insertRows(sql: postgres.Sql, projectId: string, contacts: SeedContact[]): Promise<void> {
  const json = (rows: unknown[]) => JSON.stringify(rows);
  const people = contacts.map((c) => ({
    id: c.id, project_id: projectId, email: c.email, subscribed: c.subscribed, data: c.data, created_at: c.createdAt, updated_at: c.updatedAt,
    topics: c.topics ?? {},
  }));
  const events = contacts.flatMap((c) =>
    c.events.map((e) => ({ id: randomUUID(), project_id: projectId, contact_id: c.id, name: e.name, data: e.data ?? null, created_at: e.createdAt })),
  );
  const activity = contacts.flatMap((c) =>
    c.emailActivity.map((a) => ({ project_id: projectId, contact_id: c.id, email_id: randomUUID(), kind: a.kind, occurred_at: a.occurredAt })),
  );
  const members = contacts.flatMap((c) => c.segments.map((s) => ({ segment_id: s, contact_id: c.id, project_id: projectId })));
  await sql.begin(async (tx) => {
    // random emails may collide under lower(): such a contact is skipped, its rows with it
    await tx`INSERT INTO contacts SELECT * FROM jsonb_populate_recordset(NULL::contacts, ${json(people)}::text::jsonb) ON CONFLICT DO NOTHING`;
    const owned = "EXISTS (SELECT 1 FROM contacts WHERE id = r.contact_id)";
    await tx.unsafe(`INSERT INTO contact_events SELECT * FROM jsonb_populate_recordset(NULL::contact_events, $1::text::jsonb) r WHERE ${owned}`, [json(events)]);
    await tx.unsafe(`INSERT INTO email_activity SELECT * FROM jsonb_populate_recordset(NULL::email_activity, $1::text::jsonb) r WHERE ${owned}`, [json(activity)]);
    await tx.unsafe(`INSERT INTO segment_members SELECT * FROM jsonb_populate_recordset(NULL::segment_members, $1::text::jsonb) r WHERE ${owned}`, [json(members)]);
  });
}

/** Facts exactly as a service would load them with postgres.js (Dates, parsed jsonb). */
async function readFacts(sql: postgres.Sql, projectId: string): Promise<Map<string, ContactFacts>> {
  const rows = await sql<Array<{ id: string; email: string; subscribed: boolean; data: Record<string, unknown>; topics: Record<string, boolean>; created_at: Date; updated_at: Date }>>`
    SELECT id, email, subscribed, data, topics, created_at, updated_at FROM contacts WHERE project_id = ${projectId}`;
  const facts = new Map<string, ContactFacts>();
  for (const r of rows) {
    facts.set(r.id, {
      email: r.email, subscribed: r.subscribed, data: r.data, topics: r.topics, createdAt: r.created_at, updatedAt: r.updated_at,
      events: [], emailActivity: [], segments: new Set(),
    });
  }
  for (const e of await sql<Array<{ contact_id: string; name: string; data: unknown; created_at: Date }>>`
    SELECT contact_id, name, data, created_at FROM contact_events WHERE project_id = ${projectId}`) {
    (facts.get(e.contact_id)!.events as ContactFacts["events"][number][]).push({ name: e.name, createdAt: e.created_at, data: e.data });
  }
  for (const a of await sql<Array<{ contact_id: string; kind: string; occurred_at: Date }>>`
    SELECT contact_id, kind, occurred_at FROM email_activity WHERE project_id = ${projectId}`) {
    (facts.get(a.contact_id)!.emailActivity as ContactFacts["emailActivity"][number][]).push({ kind: a.kind, occurredAt: a.occurred_at });
  }
  for (const m of await sql<Array<{ contact_id: string; segment_id: string }>>`
    SELECT contact_id, segment_id FROM segment_members WHERE project_id = ${projectId}`) {
    (facts.get(m.contact_id)!.segments as Set<string>).add(m.segment_id);
  }
  return facts;
}

/** Ids of the project's contacts matching a compiled filter, the way the services will run it. */
export async function matchingIds(sql: postgres.Sql, projectId: string, compiled: { text: string; values: unknown[] }): Promise<Set<string>> {
  const rows = await sql.unsafe<Array<{ id: string }>>(
    `SELECT c.id FROM contacts c WHERE c.project_id = $1::uuid AND ${compiled.text}`,
    [projectId, ...compiled.values] as never[],
  );
  return new Set(rows.map((r) => r.id));
}
