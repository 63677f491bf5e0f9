import { z } from "zod";
import { defineRoute } from "../route.js";
import { DisplayName, EmailAddress, Id, Mailbox, SuccessEnvelope, Timestamp, singleLine } from "../common.js";
import { ContactDataInput } from "../contacts/records.js";
import { LiquidSource } from "../liquid-source.js";

/** Recipients per /v1/send call. Each gets its own upsert, render and email record; the cap bounds
 * the work of one request (its upserts go to the contacts service in one call, its records commit
 * in one transaction). */
export const MAX_RECIPIENTS = 50;
export const MAX_ATTACHMENTS = 10;
/** Totals checked by the sending service (sizes of decoded content, not of the base64 text). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/**
 * /v1/send's body limit: the message limit as base64 (4/3) plus room for the JSON around it. The
 * exact attachment and message limits are checked by the sending service on decoded bytes.
 */
export const SEND_BODY_LIMIT = Math.ceil(MAX_MESSAGE_BYTES * (4 / 3)) + 2 * 1024 * 1024;

/** Attachment names and types land in MIME headers: no line breaks, no quotes. */
const headerParam = z
  .string()
  .min(1)
  .max(255)
  .refine((s) => !/[\r\n"']/.test(s), { message: "must not contain line breaks or quotes" });

export const Attachment = z
  .object({
    filename: headerParam,
    content: z.base64({ message: "must be Base64" }),
    contentType: headerParam.refine((s) => /^[^\s/]+\/[^\s/;]+/.test(s), { message: "must be a MIME type" }),
    contentId: headerParam.refine((s) => !/[<>\s]/.test(s), { message: "must not contain <, > or spaces" }).optional(),
    disposition: z.enum(["attachment", "inline"]).default("attachment"),
  })
  .superRefine((a, ctx) => {
    if (a.disposition === "inline" && a.contentId === undefined) {
      ctx.addIssue({ code: "custom", path: ["contentId"], message: "required when disposition is inline" });
    }
  });
export type Attachment = z.infer<typeof Attachment>;

/** RFC 5322 field name: printable ASCII except colon (so no CR, LF, space or injection). */
export const HeaderName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[!-9;-~]+$/, { message: "header names are printable ASCII without colon, CR or LF" });
export const HeaderValue = singleLine(998);

/**
 * Header names a caller may not set in /v1/send `headers`: Mailroom writes them itself. The SMTP
 * relay drops these from a submitted message for the same reason (the gateway's relay-message.ts).
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "from", "to", "cc", "bcc", "sender", "subject", "date", "message-id", "reply-to", "return-path",
  "mime-version", "content-type", "content-transfer-encoding", "content-disposition", "content-id",
  "dkim-signature", "list-unsubscribe", "list-unsubscribe-post", "precedence",
]);

export const SendEmailRequest = z
  .object({
    to: z.union([Mailbox, z.array(Mailbox).min(1).max(MAX_RECIPIENTS)]),
    subject: singleLine(998).min(1).optional(),
    body: LiquidSource().optional(),
    /**
     * The plain-text alternative of `body` (a multipart/alternative message), a Liquid template like
     * it without HTML escaping. Omitted: the email has the HTML part only. The SMTP relay fills it
     * from a submitted message's text part.
     */
    text: LiquidSource().optional(),
    template: Id.optional(),
    from: Mailbox.optional(),
    name: DisplayName.optional().meta({ deprecated: true, description: "Use from.name" }),
    subscribed: z.boolean().optional(),
    data: ContactDataInput.optional(),
    headers: z.record(HeaderName, HeaderValue).optional(),
    reply: EmailAddress.optional(),
    attachments: z.array(Attachment).max(MAX_ATTACHMENTS).optional(),
    /** Off: no open pixel and no click rewriting for this send. */
    tracking: z.boolean().optional(),
  })
  .superRefine((req, ctx) => {
    if (req.template !== undefined) return; // the template supplies what is missing; the service checks `from`
    for (const key of ["subject", "body", "from"] as const) {
      if (req[key] === undefined) ctx.addIssue({ code: "custom", path: [key], message: "required when no template is given" });
    }
  });
export type SendEmailRequest = z.infer<typeof SendEmailRequest>;

export const SentEmail = z.object({
  contact: z.object({ id: z.string(), email: z.string() }),
  /** The email record id, equal to `emailId` in later email events. */
  email: z.string(),
});
export type SentEmail = z.infer<typeof SentEmail>;

export const SendEmailResult = z.object({ emails: z.array(SentEmail), timestamp: Timestamp });
export type SendEmailResult = z.infer<typeof SendEmailResult>;
export const SendEmailResponse = SuccessEnvelope(SendEmailResult);

export const sendRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/send",
    service: "sending",
    operation: "sending.send",
    auth: "secret",
    tag: "Sending",
    summary: "Send a transactional email",
    body: SendEmailRequest,
    response: SendEmailResponse,
    status: 200,
    timeoutMs: 30_000,
    idempotent: true,
    bodyLimit: SEND_BODY_LIMIT,
  }),
];
