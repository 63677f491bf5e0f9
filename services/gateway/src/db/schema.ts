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
