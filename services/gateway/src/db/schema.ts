import { sql } from "drizzle-orm";
import { pgTable, uuid, text, timestamp, integer, jsonb, index, uniqueIndex, primaryKey } from "drizzle-orm/pg-core";
export { outbox } from "@mailroom/kit";

/** A tenant. Every resource of every service belongs to one; the id comes from the API key. */
export const projects = pgTable("projects", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * API keys are stored only as SHA-256 hashes (looked up by hash); `prefix` keeps the first
 * characters so an operator can tell keys apart in `mailroom keys list`.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["secret", "public"] }).notNull(),
    hash: text("hash").notNull(),
    prefix: text("prefix").notNull(),
    /** What the key is for, as its owner named it (keys made before names: their kind). */
    name: text("name").notNull().default("key"),
    /** Requests per second for this key; null means the gateway default. */
    rateLimit: integer("rate_limit"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.hash), index("api_keys_project_idx").on(t.projectId)],
);

/** Idempotency-Key records (decisions.md §3), kept 24 hours. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    projectId: uuid("project_id").notNull(),
    key: text("key").notNull(),
    route: text("route").notNull(),
    requestHash: text("request_hash").notNull(),
    /**
     * Names the request for the services (`meta.idempotencyId`): kept when a retry takes the claim
     * over, new when the record is released or expires, so a service deduping on it does the work once.
     */
    claimId: uuid("claim_id").notNull().defaultRandom(),
    /** null while the first request is still being answered. */
    status: integer("status"),
    response: jsonb("response"),
    /**
     * The claim's lease while `status` is null: past it (the gateway that claimed died, or its
     * request failed a while ago) a retry takes the claim over. null on older rows: taken over too.
     */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index("idempotency_created_idx").on(t.createdAt)],
);

/**
 * Dashboard accounts (decisions.md §13). One address, one account, whatever its case. Users who
 * only sign in through OpenID Connect have no password.
 */
export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("users_email_uq").on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  "memberships",
  {
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["owner", "editor", "viewer"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

/**
 * Signed-in browsers. The id is the SHA-256 of the cookie's random token, so a copy of this table
 * signs nobody in. A session ends at `expires_at`, after the idle bound past `last_seen_at`, or
 * when revoked.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** Pending invitations to a project; the emailed token is stored only as its SHA-256. */
export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: ["owner", "editor", "viewer"] }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: uuid("invited_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("invitations_token_uq").on(t.tokenHash), index("invitations_project_idx").on(t.projectId)],
);

/**
 * When an invitation email last went to an address (lower-cased) of a project: at most one an hour
 * (decisions.md §15), whatever was withdrawn or sent again meanwhile. Rows past the hour are pruned.
 */
export const invitationMailings = pgTable(
  "invitation_mailings",
  {
    projectId: uuid("project_id").notNull(),
    address: text("address").notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.address] })],
);
