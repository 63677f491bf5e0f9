import { boolean, customType, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import type { DnsRecord } from "@mailroom/contracts";
import { STAT_COUNTERS } from "../domain/stat-counters.js";
export { outbox } from "@mailroom/kit";

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });
// generic, so the column keeps its literal name: `Row<T>` keys rows by it
const ts = <N extends string>(name: N) => timestamp(name, { withTimezone: true });

export const templates = pgTable(
  "templates",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    name: text("name").notNull(),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    type: text("type", { enum: ["TRANSACTIONAL", "MARKETING"] }).notNull(),
    from: text("from_email"),
    fromName: text("from_name"),
    replyTo: text("reply_to"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("templates_project_created_idx").on(t.projectId, t.createdAt)],
);

/** A sending domain and its DKIM key. The private key never leaves this table except into a signature. */
export const domains = pgTable(
  "domains",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    domain: text("domain").notNull(),
    status: text("status", { enum: ["PENDING", "VERIFIED"] }).notNull(),
    selector: text("selector").notNull(),
    privateKey: text("private_key").notNull(),
    /** The DNS records to publish, with `found` from the latest lookup. */
    records: jsonb("records").$type<DnsRecord[]>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    verifiedAt: ts("verified_at"),
    checkedAt: ts("checked_at"),
    /** Warm-up (decisions.md §18): a daily cap per mailbox provider, set each day (delivery/warmup.ts). */
    warmup: boolean("warmup").notNull().default(false),
    warmupCap: integer("warmup_cap"),
    warmupDay: date("warmup_day"),
  },
  (t) => [uniqueIndex("domains_project_domain_uq").on(t.projectId, t.domain), index("domains_pending_idx").on(t.status, t.checkedAt)],
);

/** Attachments of one /v1/send request, stored once and shared by the email records of its recipients. */
export const attachments = pgTable("attachments", {
  id: uuid("id").primaryKey(),
  projectId: uuid("project_id").notNull(),
  filename: text("filename").notNull(),
  contentType: text("content_type").notNull(),
  contentId: text("content_id"),
  disposition: text("disposition", { enum: ["attachment", "inline"] }).notNull(),
  content: bytea("content").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/**
 * One email to one recipient, rendered when queued. `status` is the public status and only moves
 * forward; `lockedUntil` and `leaseToken` are the delivery lease that keeps two workers from sending
 * the same record.
 */
export const emails = pgTable(
  "emails",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    contactId: uuid("contact_id"),
    to: text("to_email").notNull(),
    toName: text("to_name"),
    from: text("from_email").notNull(),
    fromName: text("from_name"),
    replyTo: text("reply_to"),
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    /** The plain-text alternative (/v1/send `text`); null: HTML only. */
    text: text("text"),
    headers: jsonb("headers").$type<Record<string, string>>().notNull().default({}),
    attachmentIds: uuid("attachment_ids").array().notNull().default([]),
    templateId: uuid("template_id"),
    campaignId: uuid("campaign_id"),
    /** A topic campaign's topic: this email's unsubscribe links leave that topic only. */
    topicId: uuid("topic_id"),
    workflowId: uuid("workflow_id"),
    executionId: uuid("execution_id"),
    sourceType: text("source_type", { enum: ["TRANSACTIONAL", "CAMPAIGN", "WORKFLOW"] }).notNull(),
    marketing: boolean("marketing").notNull().default(false),
    /** sending.enqueue callers' key: a retried enqueue finds the first record instead of making a second. */
    idempotencyKey: text("idempotency_key"),
    status: text("status", {
      enum: ["QUEUED", "SENT", "DELIVERED", "OPENED", "CLICKED", "BOUNCED", "COMPLAINED", "FAILED"],
    }).notNull(),
    messageId: text("message_id").notNull(),
    lockedUntil: ts("locked_until"),
    /** The delivering replica's token (kit `LeaseSet`): its renewals and its SENT, FAILED and release statements check it. */
    leaseToken: uuid("lease_token"),
    /**
     * The mailbox provider whose warm-up cap holds the email until the next day (delivery/warmup.ts);
     * cleared by its next claim. What a campaign shows as throttled.
     */
    heldFor: text("held_for"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    sentAt: ts("sent_at"),
    deliveredAt: ts("delivered_at"),
    openedAt: ts("opened_at"),
    clickedAt: ts("clicked_at"),
    bouncedAt: ts("bounced_at"),
    complainedAt: ts("complained_at"),
    opens: integer("opens").notNull().default(0),
    clicks: integer("clicks").notNull().default(0),
    /** Targets of the tracked links, in token index order: a click token names one, never a URL. */
    links: text("links").array().notNull().default([]),
    /** The relay's id for the message (SES: the id in its 250 answer), which SES notifications name. */
    providerMessageId: text("provider_message_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // Only relays that name their messages (SES) fill it, and only feedback looks rows up by it.
    index("emails_provider_message_id_idx").on(t.providerMessageId).where(sql`provider_message_id is not null`),
    uniqueIndex("emails_project_idempotency_uq").on(t.projectId, t.idempotencyKey),
    index("emails_project_contact_idx").on(t.projectId, t.contactId, t.id),
    index("emails_project_campaign_idx").on(t.projectId, t.campaignId, t.id),
    // small: only the emails held right now
    index("emails_held_idx").on(t.campaignId, t.heldFor).where(sql`held_for is not null`),
    index("emails_project_id_idx").on(t.projectId, t.id),
    // `GET /emails?to=`: a substring of the address, case-insensitive (ILIKE), at millions of rows.
    // to_email never changes, so the index costs nothing on the delivery updates that stay HOT.
    // (No index on status: it changes on every delivery and would end those HOT updates.)
    index("emails_to_trgm_idx").using("gin", t.to.op("gin_trgm_ops")),
  ],
);

/** Per-project sending settings; a project without a row has the defaults. */
export const projectSettings = pgTable("project_settings", {
  projectId: uuid("project_id").primaryKey(),
  /** Open pixel and click rewriting (a send's `tracking: false` turns it off for that send only). */
  tracking: boolean("tracking").notNull().default(true),
  /** Double opt-in (decisions.md §14): public subscriptions wait for a confirmation click. */
  doubleOptIn: boolean("double_opt_in").notNull().default(false),
  /** The confirmation email's template; null: Mailroom's default. */
  doubleOptInTemplateId: uuid("double_opt_in_template_id"),
  /** Frequency cap (decisions.md §18): at most this many marketing emails per contact in `frequency_cap_days`; null: none. */
  frequencyCapMax: integer("frequency_cap_max"),
  frequencyCapDays: integer("frequency_cap_days"),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * Addresses that bounced permanently or complained, per project. A `contact.subscribed` event newer
 * than the row lifts it (the contact asked for mail again).
 */
export const suppressions = pgTable(
  "suppressions",
  {
    projectId: uuid("project_id").notNull(),
    email: text("email").notNull(),
    reason: text("reason", { enum: ["bounce", "complaint"] }).notNull(),
    emailId: uuid("email_id").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.email, t.reason] })],
);

/**
 * Feedback messages already applied (a DSN's or ARF report's Message-ID, an SNS MessageId), so a
 * report delivered twice emits its event once. Rows older than 30 days are pruned.
 */
export const feedbackReceipts = pgTable(
  "feedback_receipts",
  {
    key: text("key").primaryKey(),
    receivedAt: ts("received_at").notNull().defaultNow(),
  },
  (t) => [index("feedback_receipts_received_idx").on(t.receivedAt)],
);

/**
 * The timeline of each email: one row per email event of the EVENTS stream (the envelope's id is the
 * key, so an event delivered twice is stored once). `counter` is the counter of email_stats_hourly
 * the event moved, or null when it moved none (a transient bounce, or an event of a kind the email
 * had already counted).
 */
export const emailEvents = pgTable(
  "email_events",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    emailId: uuid("email_id").notNull(),
    campaignId: uuid("campaign_id"),
    type: text("type", { enum: ["SENT", "DELIVERED", "OPENED", "CLICKED", "BOUNCED", "COMPLAINED", "FAILED", "UNSUBSCRIBED"] }).notNull(),
    counter: text("counter", { enum: STAT_COUNTERS }),
    occurredAt: ts("occurred_at").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index("email_events_email_idx").on(t.emailId, t.occurredAt)],
);

const counter = <N extends string>(name: N) => integer(name).notNull().default(0);

/**
 * Email event counts per project, campaign (null: mail of no campaign) and UTC hour: what /stats
 * answers from, summed per hour or day, so it never reads emails or email_events.
 */
export const emailStatsHourly = pgTable(
  "email_stats_hourly",
  {
    projectId: uuid("project_id").notNull(),
    campaignId: uuid("campaign_id"),
    hour: ts("hour").notNull(),
    sent: counter("sent"),
    delivered: counter("delivered"),
    opened: counter("opened"),
    clicked: counter("clicked"),
    bounced: counter("bounced"),
    complained: counter("complained"),
    unsubscribed: counter("unsubscribed"),
    failed: counter("failed"),
  },
  (t) => [
    // one bucket per (project, campaign or none, hour): the upsert's target, and the range scan of /stats
    unique("email_stats_hourly_bucket_uq").on(t.projectId, t.hour, t.campaignId).nullsNotDistinct(),
    index("email_stats_hourly_campaign_idx").on(t.projectId, t.campaignId, t.hour),
  ],
);

/**
 * Clicks per tracked link of a campaign, counted as they are recorded, so GET /campaigns/{id}/links
 * reads a few rows per campaign instead of scanning its emails (100,000 of them for a big send).
 * `url_key` is md5(url) as a uuid: a bounded key for URLs of any length.
 */
export const campaignLinkClicks = pgTable(
  "campaign_link_clicks",
  {
    projectId: uuid("project_id").notNull(),
    campaignId: uuid("campaign_id").notNull(),
    urlKey: uuid("url_key").notNull(),
    url: text("url").notNull(),
    clicks: counter("clicks"),
    uniqueClicks: counter("unique_clicks"),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.campaignId, t.urlKey] })],
);

/**
 * Which email has clicked which URL at least once: a row inserted for the first time is one more
 * unique click on campaign_link_clicks. Keyed by URL, not link index, so one URL placed twice in an
 * email counts its reader once.
 */
export const campaignLinkClickers = pgTable(
  "campaign_link_clickers",
  {
    emailId: uuid("email_id").notNull(),
    urlKey: uuid("url_key").notNull(),
  },
  (t) => [primaryKey({ columns: [t.emailId, t.urlKey] })],
);

/**
 * Double opt-in confirmations sent, per address (lower-cased), for the 24-hour quota of decisions.md
 * §15: one per project and three across projects. `idempotency_key` is the request's, so a retried
 * request finds its own row. Rows past the window are pruned.
 */
export const confirmationSends = pgTable(
  "confirmation_sends",
  {
    projectId: uuid("project_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    address: text("address").notNull(),
    sentAt: ts("sent_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.idempotencyKey] }), index("confirmation_sends_address_idx").on(t.address, t.sentAt)],
);

/** Confirmation links (`/c/{token}`, one per confirmation email) already used: each works once. */
export const confirmationLinksUsed = pgTable("confirmation_links_used", {
  emailId: uuid("email_id").primaryKey(),
  usedAt: ts("used_at").notNull().defaultNow(),
});
