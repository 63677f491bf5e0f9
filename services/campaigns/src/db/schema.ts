import type { AbTest, CampaignVariant, DeliverAt, FilterExpression } from "@mailroom/contracts";
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, real, text, timestamp, uuid } from "drizzle-orm/pg-core";
export { outbox } from "@mailroom/kit";

// generic, so each column keeps its literal name in the row type (`Row<typeof campaigns>`)
const at = <N extends string>(name: N) => timestamp(name, { withTimezone: true });
const counter = <N extends string>(name: N) => integer(name).notNull().default(0);

/**
 * One row per campaign: the record of the API, its fan-out progress and its live stats counters.
 * Every state change is a conditional UPDATE on `status`, so concurrent requests, the scheduler and
 * replicas never both win the same transition.
 */
export const campaigns = pgTable(
  "campaigns",
  {
    id: uuid("id").primaryKey(),
    projectId: uuid("project_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    fromEmail: text("from_email").notNull(),
    fromName: text("from_name"),
    replyTo: text("reply_to"),
    audienceType: text("audience_type", { enum: ["ALL", "SEGMENT", "FILTERED"] }).notNull(),
    segmentId: text("segment_id"),
    audienceFilter: jsonb("audience_filter").$type<FilterExpression>(),
    /** A topic campaign's topic (a contacts-service id, checked there): only contacts opted in get it. */
    topicId: text("topic_id"),
    status: text("status", { enum: ["DRAFT", "SCHEDULED", "SENDING", "SENT"] }).notNull(),
    scheduledAt: at("scheduled_at"),
    /** When the campaign became SENT (every recipient's job ended). */
    sentAt: at("sent_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),

    /** When it became SENDING (now, or its scheduled time). */
    startedAt: at("started_at"),
    /**
     * The Idempotency-Key claim (the gateway's `meta.idempotencyId`) of the send that started or
     * scheduled it: a retry of that send after a lost answer is answered with the campaign.
     */
    sendRequestId: uuid("send_request_id"),
    /** Keyset checkpoint: the last contact id whose page is in campaign_pending or already enqueued. */
    lastContactId: text("last_contact_id"),
    /** The audience has been read to its end; `recipients` is final from then on. */
    audienceDone: boolean("audience_done").notNull().default(false),
    /** Every recipient has a delivery job: the campaign can become SENT once all have ended. */
    fanoutDoneAt: at("fanout_done_at"),
    leaseOwner: text("lease_owner"),
    leaseUntil: at("lease_until"),
    /**
     * The running fan-out's measure of its delivery rate (emails/s), kept so that every fan-out can
     * size its window from the whole bulk lane's rate (domain/window.ts), whichever replica runs it.
     */
    sendRate: real("send_rate").notNull().default(0),

    /** A/B test (both or neither): the versions and the rules. */
    variants: jsonb("variants").$type<CampaignVariant[]>(),
    abTest: jsonb("ab_test").$type<AbTest>(),
    /** Recipients drawn into the test's sample, once drawn (the whole audience read first). */
    abSampleSize: integer("ab_sample_size"),
    /** The durable deadline of the test's wait, set once the whole sample is handed to sending. */
    winnerDueAt: at("winner_due_at"),
    /** The variant sent to the rest of the audience; the rest's fan-out waits for it. */
    winnerVariant: integer("winner_variant"),

    /** Local-time delivery (decisions.md §18): each recipient's pending row gets its own due time. */
    deliverAt: jsonb("deliver_at").$type<DeliverAt>(),
    /**
     * Set when every pending recipient waits for its local time: the fan-out gave its lease back and
     * is not claimed again until the scheduler sees this instant reached (in the project's clock) and
     * clears it. The earliest pending due time, so one wake-up per distinct local time.
     */
    holdUntil: at("hold_until"),

    recipients: counter("recipients"),
    sent: counter("sent"),
    delivered: counter("delivered"),
    opened: counter("opened"),
    clicked: counter("clicked"),
    bounced: counter("bounced"),
    complained: counter("complained"),
    unsubscribed: counter("unsubscribed"),
    failed: counter("failed"),
    /** Recipients the project's frequency cap kept from being mailed. */
    skipped: counter("skipped"),
    /** Pending recipients held for their local time (stats.waiting): added with the page, less as handed over. */
    waiting: counter("waiting"),
    /** Recipients whose job has ended (sent, failed or skipped), each counted once. */
    ended: counter("ended"),
  },
  (t) => [
    index("campaigns_project_created_idx").on(t.projectId, t.createdAt),
    index("campaigns_due_idx").on(t.scheduledAt).where(sql`status = 'SCHEDULED'`),
    index("campaigns_sending_idx").on(t.startedAt).where(sql`status = 'SENDING'`),
    index("campaigns_hold_idx").on(t.holdUntil).where(sql`status = 'SENDING' and hold_until is not null`),
    index("campaigns_winner_due_idx").on(t.winnerDueAt).where(sql`status = 'SENDING' and winner_variant is null`),
  ],
);

/**
 * Recipients read from the audience but not yet handed to the sending service: the fan-out's own
 * outbox. A page lands here in the same transaction that moves the checkpoint, and a row leaves only
 * once sending.enqueue answered, so a crash between the two loses and adds no recipient.
 */
export const campaignPending = pgTable(
  "campaign_pending",
  {
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    contactId: text("contact_id").notNull(),
    email: text("email").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    /** Local-time delivery: not handed to sending before this instant (null: at once). */
    dueAt: at("due_at"),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.contactId] })],
);

/**
 * Email events already counted, one row per email and stat, so a redelivered or repeated event never
 * counts twice. Kept past the EVENTS stream's 7-day max age (after which nothing is redelivered).
 */
export const countedEmailEvents = pgTable(
  "counted_email_events",
  {
    emailId: uuid("email_id").notNull(),
    kind: text("kind").notNull(),
    countedAt: at("counted_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.emailId, t.kind] }), index("counted_email_events_at_idx").on(t.countedAt)],
);

/**
 * Event batches already counted, by message id (the outbox row's, the same on every redelivery and
 * republish): a batch carries events that each happen once per email (an email's QUEUED → SENT
 * move), so the batch is the unit of de-duplication and no row is written per email. Kept as long
 * as counted_email_events.
 */
export const countedMessages = pgTable(
  "counted_messages",
  {
    id: uuid("id").primaryKey(),
    countedAt: at("counted_at").notNull().defaultNow(),
  },
  (t) => [index("counted_messages_at_idx").on(t.countedAt)],
);

/**
 * The A/B test's sample: which variant each sampled recipient was given, drawn once in one
 * transaction. It outlives campaign_pending so that each email event (by its contact) is counted in
 * its variant's stats.
 */
export const campaignVariantRecipients = pgTable(
  "campaign_variant_recipients",
  {
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    contactId: text("contact_id").notNull(),
    variant: integer("variant").notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.contactId] })],
);

/** Per-variant stats of the sample, kept by the same consumer (and transaction) as the campaign's. */
export const campaignVariants = pgTable(
  "campaign_variants",
  {
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    variant: integer("variant").notNull(),
    recipients: counter("recipients"),
    sent: counter("sent"),
    delivered: counter("delivered"),
    opened: counter("opened"),
    clicked: counter("clicked"),
    bounced: counter("bounced"),
    complained: counter("complained"),
    unsubscribed: counter("unsubscribed"),
    failed: counter("failed"),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.variant] })],
);
