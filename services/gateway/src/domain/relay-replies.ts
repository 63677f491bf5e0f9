import type { ErrorCode, WireError } from "@mailroom/contracts";
import type { Unmappable } from "./relay-message.js";

/** An SMTP answer: the reply code and its text, which starts with the enhanced status code (RFC 3463). */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * The relay's answers (decisions.md §17). Permanent (5xx) where the same submission can never
 * succeed, temporary (4xx) where the client should keep the message and try again later.
 */
export const RELAY_REPLIES = {
  badCredentials: { code: 535, text: "5.7.8 Authentication failed: the password must be an active secret key (sk_)" },
  authThrottled: { code: 454, text: "4.7.0 Too many failed authentications from this address, try again later" },
  senderNotVerified: (domain: string) => ({ code: 550, text: `5.7.1 Sender domain ${domain} is not verified in this project` }),
  tooManyRecipients: (max: number) => ({ code: 452, text: `4.5.3 Too many recipients: at most ${max} a message, send the rest in another message` }),
  rateLimited: { code: 451, text: "4.7.1 Rate limit of this key reached, try again later" },
  tooBig: (max: number) => ({ code: 552, text: `5.3.4 Message too big: the limit is ${max} bytes` }),
  unmappable: (u: Unmappable) => (u.kind === "too_many_attachments" ? { code: 552, text: `5.3.4 ${u.message}` } : { code: 550, text: `5.1.7 ${u.message}` }),
  busy: { code: 452, text: "4.3.1 Too many messages in progress, try again later" },
} satisfies Record<string, SmtpReply | ((...a: never[]) => SmtpReply)>;

const BY_ERROR: Record<ErrorCode, SmtpReply> = {
  VALIDATION_ERROR: { code: 550, text: "5.6.0 Message refused" },
  DOMAIN_NOT_VERIFIED: { code: 550, text: "5.7.1 Sender domain not verified" },
  PAYLOAD_TOO_LARGE: { code: 552, text: "5.3.4 Message too big" },
  RATE_LIMITED: { code: 451, text: "4.7.1 Rate limited, try again later" },
  UNAUTHORIZED: { code: 535, text: "5.7.8 Authentication failed" },
  FORBIDDEN: { code: 550, text: "5.7.1 Not allowed" },
  NOT_FOUND: { code: 550, text: "5.1.0 Not found" },
  CONFLICT: { code: 451, text: "4.3.0 Conflict, try again later" },
  WORKFLOW_LOCKED: { code: 451, text: "4.3.0 Conflict, try again later" },
  INVALID_STATE: { code: 550, text: "5.6.0 Message refused" },
  IDEMPOTENCY_KEY_REUSED: { code: 550, text: "5.6.0 Message refused" },
  // the outcome is unknown or the platform is unwell: the client keeps the message and retries, and
  // the Message-ID keeps a retry of a message that did go out from going out twice
  SERVICE_UNAVAILABLE: { code: 451, text: "4.3.0 Service unavailable, try again later" },
  INTERNAL_ERROR: { code: 451, text: "4.3.0 Internal error, try again later" },
};

/**
 * The one place an API error becomes an SMTP answer. The error's own message goes after the fixed
 * words (for 4xx/5xx from /v1/send's rules: which field, which limit), on one line.
 */
export function smtpReplyOf(err: WireError): SmtpReply {
  const base = BY_ERROR[err.error];
  const internal = err.error === "INTERNAL_ERROR" || err.error === "SERVICE_UNAVAILABLE";
  const detail = internal ? "" : [err.message, ...(err.details ?? []).map((d) => `${d.path}: ${d.message}`)].join("; ");
  return { code: base.code, text: detail ? `${base.text}: ${detail.replace(/[\r\n]+/g, " ").slice(0, 400)}` : base.text };
}
