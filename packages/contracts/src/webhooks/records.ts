import { z } from "zod";
import { SegmentEventData, SYSTEM_EVENT_DATA, SYSTEM_EVENT_NAMES } from "../events.js";
import { Timestamp } from "../common.js";

/**
 * Outbound webhooks (decisions.md §16): endpoints a project's owner registers, and one delivery per
 * (endpoint, event) that matches. Payloads follow Standard Webhooks: `{type, timestamp, data}`.
 */

/** The event type of `POST /webhooks/{id}/test`: sent to that endpoint only, whatever it subscribes to. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

/**
 * An event pattern: a system event name, `*` standing for any run of characters (`email.*`,
 * `segment.*.entry`, `*`). A pattern that matches no system event is refused: a typo would
 * otherwise subscribe to nothing, silently.
 */
export const EventPattern = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9_*.-]+$/i, "letters, digits, '.', '_', '-' and '*' only")
  .refine(patternMatchesAnySystemEvent, "matches no system event (email.*, contact.*, segment.<slug>.entry|exit)");

/** `*` is any run of characters; the rest is literal. */
export function eventPatternRegExp(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`);
}

/** Whether a system event (or a segment event, whose middle is a slug) can match the pattern. */
function patternMatchesAnySystemEvent(pattern: string): boolean {
  const re = eventPatternRegExp(pattern);
  return SYSTEM_EVENT_NAMES.some((n) => re.test(n)) || re.test("segment.x.entry") || re.test("segment.x.exit") || /^segment\.[^*]+\.(entry|exit)$/.test(pattern);
}

/** Whether an event name is one webhooks deliver: a system event (never a custom /v1/track event). */
export function isWebhookEvent(name: string): boolean {
  return (SYSTEM_EVENT_NAMES as readonly string[]).includes(name) || /^segment\..+\.(entry|exit)$/.test(name);
}

export const WebhookUrl = z.string().trim().min(1).max(2000);

export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Why Mailroom disabled it (a 410, or five days of failed deliveries); null when enabled or disabled by hand. */
  disabledReason: z.string().nullable(),
  /** Until when the previous secret still signs beside the current one (after a rotation), else null. */
  previousSecretExpiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** The answer to a create or a rotation: the secret, shown this once. */
export const WebhookEndpointWithSecret = WebhookEndpoint.extend({ secret: z.string().startsWith("whsec_") });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const WEBHOOK_DELIVERY_STATUSES = ["PENDING", "SUCCEEDED", "FAILED"] as const;
export const WebhookDeliveryStatus = z.enum(WEBHOOK_DELIVERY_STATUSES);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** What a receiver gets as the body: Standard Webhooks' `{type, timestamp, data}`. */
export const WebhookPayload = z.object({
  type: z.string(),
  timestamp: Timestamp,
  data: z.record(z.string(), z.unknown()).meta({
    description:
      "The event's data, with the ids a client matches its records by: emailId (as /v1/send returned it), contactId, email, campaignId, workflowId where the event has them",
  }),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

export const WebhookDelivery = z.object({
  id: z.string(),
  /** The `webhook-id` header: the event's id, the same on every attempt. */
  eventId: z.string(),
  eventType: z.string(),
  status: WebhookDeliveryStatus,
  attempts: z.number().int(),
  /** The last attempt's HTTP status (null: no answer came). */
  responseCode: z.number().int().nullable(),
  /** The first KB of the last answer's body. */
  responseBody: z.string().nullable(),
  /** Why the last attempt failed, in words (a timeout, a refused address, a non-2xx status). */
  error: z.string().nullable(),
  payload: WebhookPayload,
  nextAttemptAt: Timestamp.nullable(),
  lastAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** The ids every payload's `data` carries beside the event's own data, where the event has them. */
const DeliveredIds = z.object({
  contactId: z.string().optional().meta({ description: "The contact the event is about" }),
  email: z.string().optional().meta({ description: "The contact's address when the event occurred" }),
});

/**
 * The body of each event type as receivers get it, for the OpenAPI document's `webhooks` (one entry
 * per type). `segment.<slug>.entry|exit` stands for every segment's pair.
 */
export const WEBHOOK_EVENT_PAYLOADS: Record<string, z.ZodType> = {
  ...Object.fromEntries(
    Object.entries(SYSTEM_EVENT_DATA).map(([name, data]) => [
      name,
      z.object({ type: z.literal(name), timestamp: Timestamp, data: (data as z.ZodObject).extend(DeliveredIds.shape) }),
    ]),
  ),
  "segment.<slug>.entry": z.object({ type: z.string().meta({ description: "segment.<slug>.entry" }), timestamp: Timestamp, data: SegmentEventData.extend(DeliveredIds.shape) }),
  "segment.<slug>.exit": z.object({ type: z.string().meta({ description: "segment.<slug>.exit" }), timestamp: Timestamp, data: SegmentEventData.extend(DeliveredIds.shape) }),
  [WEBHOOK_TEST_EVENT]: z.object({ type: z.literal(WEBHOOK_TEST_EVENT), timestamp: Timestamp, data: z.object({ endpointId: z.string() }) }),
};

/** The Standard Webhooks headers of every delivery. */
export const WEBHOOK_HEADERS = {
  "webhook-id": "The event's id: the same on every attempt; deduplicate on it",
  "webhook-timestamp": "When this attempt was made, in seconds since the epoch",
  "webhook-signature": "v1,<base64 HMAC-SHA256 of \"id.timestamp.body\"> per secret, space-separated (two for 24 h after a rotation)",
} as const;
