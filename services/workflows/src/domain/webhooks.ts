import { createHmac, randomBytes } from "node:crypto";
import { eventPatternRegExp, type EventEnvelope, type WebhookPayload } from "@mailroom/contracts";

/**
 * The rules of outbound webhooks (decisions.md §16), as Standard Webhooks defines them: secrets,
 * signatures, the payload, the retry schedule and when an endpoint is given up on.
 */

const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks' libraries read it. */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret,
 * space-separated (two during a rotation's overlap). The key is the secret's bytes after `whsec_`.
 */
export function signature(secrets: readonly string[], id: string, timestampSec: number, body: string): string {
  const signed = `${id}.${timestampSec}.${body}`;
  return secrets.map((s) => `v1,${createHmac("sha256", Buffer.from(s.slice(SECRET_PREFIX.length), "base64")).update(signed).digest("base64")}`).join(" ");
}

/** The headers of one attempt; the timestamp is the attempt's, the id the event's on every attempt. */
export function signedHeaders(secrets: readonly string[], id: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Mailroom-Webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature(secrets, id, timestamp, body),
  };
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

/**
 * The pause before each retry, counted from the attempt before it (Standard Webhooks' schedule, as
 * Svix runs it): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts in all, about 28 hours.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/** When to try again after `attempts` failed attempts, or null: the delivery has failed for good. */
export function retryDelayMs(attempts: number, timeScale = 1): number | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? null : delay / timeScale;
}

/** An endpoint failing every attempt for this long is disabled. */
export const GIVE_UP_AFTER_MS = 5 * 24 * 3600_000;

/** Kept this long after they were made, whatever became of them. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

/** The first bytes of an answer kept in the deliveries log. */
export const ANSWER_KEEP_BYTES = 1024;

/** Whether a status counts as delivered: any 2xx. */
export const delivered = (status: number): boolean => status >= 200 && status < 300;

/** 410 Gone: the receiver says the endpoint is no more; it is disabled at once. */
export const GONE = 410;

/** Event patterns compiled once per endpoint row. */
export function matcher(patterns: readonly string[]): (name: string) => boolean {
  const res = patterns.map(eventPatternRegExp);
  return (name) => res.some((re) => re.test(name));
}

/**
 * The body a receiver gets: `{type, timestamp, data}`. `data` is the event's data with the ids a
 * client matches its own records by: the contact's id and address beside the email's
 * (`emailId`, `campaignId`) that email events carry.
 */
export function payloadOf(event: Pick<EventEnvelope, "name" | "occurredAt" | "contactId" | "email" | "data">): WebhookPayload {
  return {
    type: event.name,
    timestamp: event.occurredAt,
    data: { ...event.data, ...(event.contactId ? { contactId: event.contactId } : {}), ...(event.email ? { email: event.email } : {}) },
  };
}
