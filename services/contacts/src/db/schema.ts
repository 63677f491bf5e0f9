import type { ContactData, FilterExpression, FormField, JsonValue } from "@mailroom/contracts";
import { sql } from "drizzle-orm";
import { pgTable, uuid, text, boolean, jsonb, timestamp, integer, bigint, index, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";
export { outbox } from "@mailroom/kit";

/**
 * Column names here are a contract with packages/filters, whose SQL compiler reads these tables
 * (see the contacts tables note): rename nothing without changing the compiler in the same release.
 */
const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull();

export const contacts = pgTable(
  "contacts",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    /** As given, trimmed; uniqueness and search use lower(email). */
    email: text("email").notNull(),
    subscribed: boolean("subscribed").notNull(),
    data: jsonb("data").$type<ContactData>().notNull().default({}),
    /** The contact's own topic choices, `{<topicId>: boolean}`; a missing topic has its default. */
    topics: jsonb("topics").$type<Record<string, boolean>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("contacts_project_email_uq").on(t.projectId, sql`lower(${t.email})`),
    index("contacts_project_id_idx").on(t.projectId, t.id),
    // Substring search (`lower(email) like '%…%'`): only a trigram index serves a leading wildcard.
    index("contacts_email_trgm_idx").using("gin", sql`lower(${t.email}) gin_trgm_ops`),
  ],
);

/** Tracked custom events from /v1/track. */
export const contactEvents = pgTable(
  "contact_events",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    data: jsonb("data").$type<Record<string, JsonValue>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index("contact_events_contact_name_idx").on(t.contactId, t.name, t.createdAt),
    // Project-wide counts of "event X (within N days)" read this index alone (contact_id is its last column):
    // an index-only scan of one name's window instead of a scan of every event of the project.
    index("contact_events_project_name_at_idx").on(t.projectId, t.name, t.createdAt, t.contactId),
    // GET /contacts/{id}/events pages newest first by id (UUIDv7: id order is creation order).
    index("contact_events_contact_id_idx").on(t.contactId, t.id),
  ],
);

/** Per-contact projection of email events; one row per email and kind (the first occurrence). */
export const emailActivity = pgTable(
  "email_activity",
  {
    projectId: uuid("project_id").notNull(),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    emailId: uuid("email_id").notNull(),
    kind: text("kind", { enum: ["sent", "delivered", "opened", "clicked", "bounced", "complained"] }).notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.emailId, t.kind] }),
    index("email_activity_contact_kind_idx").on(t.contactId, t.kind, t.occurredAt),
    // Same as contact_events: project-wide segment counts over one kind of activity.
    index("email_activity_project_kind_at_idx").on(t.projectId, t.kind, t.occurredAt, t.contactId),
  ],
);

/**
 * Email events this service has already acted on, so a redelivered event changes nothing even when
 * its activity row could not tell (a second bounce of one email). Kept past the EVENTS stream's
 * 7-day max age, then purged.
 */
export const consumedEvents = pgTable(
  "consumed_events",
  {
    /** The envelope id (text: it is whatever id the emitting service gave its event). */
    id: text("id").primaryKey(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("consumed_events_at_idx").on(t.consumedAt)],
);

export const segments = pgTable(
  "segments",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    filters: jsonb("filters").$type<FilterExpression>().notNull(),
    trackMembership: boolean("track_membership").notNull().default(false),
    memberCount: integer("member_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("segments_project_idx").on(t.projectId, t.id)],
);

export const segmentMembers = pgTable(
  "segment_members",
  {
    segmentId: uuid("segment_id")
      .notNull()
      .references(() => segments.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    projectId: uuid("project_id").notNull(),
    enteredAt: timestamp("entered_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.segmentId, t.contactId] }), index("segment_members_contact_idx").on(t.contactId)],
);

/**
 * When a tracked segment's answer for a contact next changes with time alone (`nextBoundary` of its
 * relative-time filters). The scheduler re-checks only the rows that are due, so the time-relative
 * part of tracking costs what changes, not the size of the project.
 */
export const segmentDue = pgTable(
  "segment_due",
  {
    segmentId: uuid("segment_id")
      .notNull()
      .references(() => segments.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    projectId: uuid("project_id").notNull(),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.segmentId, t.contactId] }),
    index("segment_due_at_idx").on(t.dueAt),
    index("segment_due_contact_idx").on(t.contactId),
  ],
);

/** Topics a contact opts into or out of one by one (decisions.md §14). */
export const topics = pgTable(
  "topics",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    defaultSubscribed: boolean("default_subscribed").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index("topics_project_idx").on(t.projectId, t.id)],
);

/**
 * Signup forms (decisions.md §17): the definition the hosted page renders and a submission is
 * checked against, and how many submissions were accepted (one `+ 1` per accepted submission).
 */
export const forms = pgTable(
  "forms",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    name: text("name").notNull(),
    fields: jsonb("fields").$type<FormField[]>().notNull(),
    topicIds: jsonb("topic_ids").$type<string[]>().notNull().default([]),
    redirectUrl: text("redirect_url"),
    successMessage: text("success_message").notNull(),
    submissions: bigint("submissions", { mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("forms_project_idx").on(t.projectId, t.id)],
);

/**
 * CSV imports (decisions.md §14): progress and outcome, and what a replica needs to take over one
 * whose runner died. `phase` says where it is: `queued` (the upload waits in the blob store),
 * `loading` (rows are parsed into the import's own staging table; a takeover loads again from the
 * start, the upload being deleted only once it is loaded), `applying` (batches of staged rows are applied, each in one transaction with
 * `applied_row`, so a takeover resumes after the last committed batch). `heartbeat_at` is the
 * runner's lease: a RUNNING import whose heartbeat is older than the lease is free to take.
 */
export const contactImports = pgTable(
  "contact_imports",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    status: text("status", { enum: ["RUNNING", "COMPLETED", "FAILED"] }).notNull(),
    phase: text("phase", { enum: ["queued", "loading", "applying", "done"] }).notNull(),
    blob: text("blob").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    rows: integer("rows").notNull().default(0),
    created: integer("created").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    errors: jsonb("errors").$type<Array<{ row: number; message: string }>>().notNull().default([]),
    /** Rows up to this number (as `row` counts them) are applied. */
    appliedRow: integer("applied_row").notNull().default(0),
    /** `?topics=`: topics every row is opted into. */
    topics: text("topics").array().notNull().default([]),
    /** The project's double opt-in setting when the import was made: a takeover applies the same rule. */
    doubleOptIn: boolean("double_opt_in").notNull().default(false),
    awaitingConfirmation: integer("awaiting_confirmation").notNull().default(0),
    /** The runner's lease (kit `Lease`): its token, and when it last renewed it (null: nobody holds it). */
    leaseOwner: text("lease_owner"),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("contact_imports_running_idx").on(t.createdAt).where(sql`status = 'RUNNING'`), index("contact_imports_project_idx").on(t.projectId)],
);

/**
 * Double opt-in confirmation emails still to be asked of the sending service, one row per
 * subscription request. A CSV import writes them in its batch's transaction, so a committed batch
 * always gets its emails; the ConfirmationMailer drains them. The key is also the email's
 * idempotency key at the sending service: a row asked twice (a crash after the call) mails once.
 */
export const pendingConfirmations = pgTable(
  "pending_confirmations",
  {
    idempotencyKey: text("idempotency_key").primaryKey(),
    projectId: uuid("project_id").notNull(),
    contactId: uuid("contact_id").notNull(),
    email: text("email").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** Not asked before this: its first time, or the next try after a failure (or a claim's lease). */
    notBefore: timestamp("not_before", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("pending_confirmations_due_idx").on(t.notBefore)],
);

/**
 * The project's data keys (the top-level keys of contacts' `data`), at most 2,000 (decisions.md §15),
 * registered before the first write that stores one. `position` numbers them 1, 2, 3… in the order
 * they came, under the project's lock, and a key is never removed: an export reads the keys up to the
 * position it started with, so every chunk has the same columns without carrying them.
 */
export const dataKeys = pgTable(
  "data_keys",
  {
    projectId: uuid("project_id").notNull(),
    key: text("key").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), uniqueIndex("data_keys_position_uq").on(t.projectId, t.position)],
);

/**
 * A place among the project's pending imports, taken before an upload's body is read (decisions.md
 * §15) and given up when its import is made, or when it expires (the upload never finished).
 */
export const importSlots = pgTable(
  "import_slots",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("import_slots_project_idx").on(t.projectId)],
);
