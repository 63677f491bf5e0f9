import {
  AppError,
  TEMPLATE_INVALID_REASON,
  type CampaignVariant,
  type EnqueueBatchRpcRequest,
  type EnqueueEmailRpcRequest,
  type MessageChecksRpcRequest,
} from "@mailroom/contracts";
import { variantContent } from "./ab-test.js";

export interface CampaignContentLike {
  id: string;
  project_id: string;
  subject: string;
  body: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  /** Absent on rows of releases before topics. */
  topic_id?: string | null;
  variants?: CampaignVariant[] | null;
}

export interface Recipient {
  contactId: string;
  email: string;
  data: Record<string, unknown>;
}

/**
 * The idempotency key of a recipient's email: the same campaign and contact always name the same
 * email, so an enqueue repeated after a crash, a timeout or an overlapping fan-out sends nothing twice.
 */
export const recipientKey = (campaignId: string, contactId: string) => `campaign:${campaignId}:${contactId}`;

/** `variant`: an A/B variant's subject and body (domain/ab-test.ts) instead of the campaign's. */
const sender = (c: CampaignContentLike, variant: number | null = null) => ({
  from: c.from_email,
  ...(c.from_name ? { fromName: c.from_name } : {}),
  ...(c.reply_to ? { replyTo: c.reply_to } : {}),
  ...variantContent({ subject: c.subject, body: c.body, variants: c.variants ?? null }, variant),
});

/**
 * Recipients of one campaign as one sending.enqueueBatch request, each with its own idempotency key.
 * The key names campaign and contact only, never the variant: whichever version a recipient is
 * given, a repeated enqueue still returns their one email.
 */
export function recipientBatch(c: CampaignContentLike, recipients: Recipient[], variant: number | null = null): EnqueueBatchRpcRequest {
  return {
    projectId: c.project_id,
    source: { type: "CAMPAIGN", campaignId: c.id },
    ...sender(c, variant),
    marketing: true,
    // a topic campaign's unsubscribe links leave the topic only
    ...(c.topic_id ? { topicId: c.topic_id } : {}),
    recipients: recipients.map((r) => ({ idempotencyKey: recipientKey(c.id, r.contactId), to: r.email, contactId: r.contactId, data: r.data })),
  };
}

/**
 * A test copy. It names no campaignId on purpose: its events must not reach the campaign's stats
 * (an extra `sent` would let the campaign look finished one recipient early). Each call is a new copy.
 */
export function testEmail(c: CampaignContentLike, to: string, contact: Recipient | null, copyId: string, variant: number | null = null): EnqueueEmailRpcRequest {
  return {
    projectId: c.project_id,
    source: { type: "CAMPAIGN" },
    idempotencyKey: `campaign-test:${c.id}:${copyId}`,
    to,
    contactId: null,
    ...sender(c, variant),
    data: contact?.data ?? {},
    marketing: true,
  };
}

/**
 * A refusal of the whole call that every recipient of the campaign would get alone too: its content
 * (a body that does not parse or is over 1 MB, a template gone) or its sender. Only a validation
 * error that is not about the template can be one recipient's doing (its address or data), and is
 * worth trying recipient by recipient.
 */
export function refusesEveryRecipient(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  if (err.code === "VALIDATION_ERROR") return err.reason === TEMPLATE_INVALID_REASON;
  return isPermanentEnqueueError(err);
}

/** Answers of sending.enqueue that no retry can change: that recipient ends as failed. */
export function isPermanentEnqueueError(err: unknown): boolean {
  return err instanceof AppError && ["VALIDATION_ERROR", "NOT_FOUND", "DOMAIN_NOT_VERIFIED", "PAYLOAD_TOO_LARGE"].includes(err.code);
}

/**
 * Sending is not there (not running, or the bus is down): waiting is all a fan-out can do, however
 * long it takes. Any other failure that moves nobody on counts toward giving those recipients up.
 */
export function sendingAway(err: unknown): boolean {
  return err instanceof AppError && err.code === "SERVICE_UNAVAILABLE" && /not running|bus is unavailable/i.test(err.message);
}

/**
 * The pre-send checks' question about a campaign (decisions.md §18): its sender and, for each version
 * a recipient can get, the subject and body. An A/B campaign's recipients get one of its variants
 * (a variant without a body has the campaign's), each checked and named "variant N" in the details.
 */
export function checksRequest(c: CampaignContentLike): MessageChecksRpcRequest {
  const variants = c.variants ?? [];
  const contents = variants.length
    ? variants.map((_, i) => ({ label: `variant ${i + 1}`, ...variantContent({ subject: c.subject, body: c.body, variants }, i) }))
    : [{ label: null, subject: c.subject, body: c.body }];
  return {
    projectId: c.project_id,
    from: c.from_email,
    fromName: c.from_name,
    replyTo: c.reply_to,
    marketing: true,
    topicId: c.topic_id ?? null,
    contents,
  };
}
