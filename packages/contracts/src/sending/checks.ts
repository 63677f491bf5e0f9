import { z } from "zod";
import { DisplayName, EmailAddress, Id } from "../common.js";
import { LiquidSource } from "../liquid-source.js";

/**
 * Pre-send checks (decisions.md §18): what a campaign's message will look like to Gmail, Yahoo and
 * spam filters, before it is sent. Names are a contract (clients key icons and help on them): add
 * names, never rename one.
 *
 * - `spf`, `dkim`, `dmarc`: the sender domain's records, looked up live.
 * - `one_click_unsubscribe`: the RFC 8058 headers Mailroom adds to marketing mail, DKIM-signed.
 * - `unsubscribe_link`: a marketing body links to `{{ unsubscribeUrl }}` (or `{{ manageUrl }}`).
 * - `html_size`: the rendered HTML's bytes against Gmail's 102 KB clipping.
 * - `image_alt`: every `<img>` has a non-empty `alt`.
 * - `private_links`: no `href`/`src` to a private, loopback, link-local or local host.
 * - `spam_score`: rspamd's verdict (only when the platform has `RSPAMD_URL`; absent otherwise).
 * - `render`: only when the body cannot be rendered (then the content checks are absent).
 */
export const CHECK_NAMES = [
  "spf",
  "dkim",
  "dmarc",
  "one_click_unsubscribe",
  "unsubscribe_link",
  "html_size",
  "image_alt",
  "private_links",
  "spam_score",
  "render",
] as const;
export const CheckName = z.enum(CHECK_NAMES);
export type CheckName = z.infer<typeof CheckName>;

export const CHECK_STATUSES = ["pass", "warn", "fail"] as const;
export const CheckStatus = z.enum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const PreSendCheck = z.object({
  check: CheckName,
  status: CheckStatus,
  /** For a person: what was found and, when it is not a pass, what to do. */
  detail: z.string(),
});
export type PreSendCheck = z.infer<typeof PreSendCheck>;

/** In a fixed order: the sender domain's, then the message's, then the spam filter's. */
export const PreSendChecks = z.array(PreSendCheck);
export type PreSendChecks = z.infer<typeof PreSendChecks>;

/**
 * One version of the message to check: a campaign's own content, or one A/B variant's (`label`
 * names it in the details, e.g. "variant 2").
 */
export const CheckedContent = z.object({ label: z.string().max(50).nullable(), subject: z.string().max(998), body: LiquidSource() });
export type CheckedContent = z.infer<typeof CheckedContent>;

/** sending.messageChecks: asked by the campaigns service once the campaign is known to be the project's. */
export const MessageChecksRpcRequest = z.object({
  projectId: Id,
  from: EmailAddress,
  fromName: DisplayName.nullable().optional(),
  replyTo: EmailAddress.nullable().optional(),
  /** Marketing mail carries the one-click headers and must link to its unsubscribe page. */
  marketing: z.boolean(),
  topicId: Id.nullable().optional(),
  contents: z.array(CheckedContent).min(1).max(6),
});
export type MessageChecksRpcRequest = z.infer<typeof MessageChecksRpcRequest>;
export const MessageChecksRpcReply = z.object({ checks: PreSendChecks });
export type MessageChecksRpcReply = z.infer<typeof MessageChecksRpcReply>;

/**
 * How long the checks of one message may take in all: each DNS lookup and the rspamd request are
 * bounded well inside it (the sending service), and the campaigns service and the gateway wait a
 * little longer, so a slow resolver is a check's "did not answer", never a 503.
 */
export const MESSAGE_CHECKS_TIMEOUT_MS = 8000;
