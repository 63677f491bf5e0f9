import { z } from "zod";
import { defineRpc } from "../route.js";
import { ErrorCode } from "../errors.js";
import { DisplayName, EmailAddress, Id, JsonObject } from "../common.js";
import { LiquidSource } from "../liquid-source.js";
import { Domain, DomainName, EmailSourceType } from "./emails.js";
import { TemplateType } from "./templates.js";
import { MessageChecksRpcReply, MessageChecksRpcRequest } from "./checks.js";

/** What a delivery job's content is made of: one sender and one template or subject and body. */
const EmailContent = z.object({
  projectId: Id,
  source: z.object({
    type: EmailSourceType,
    campaignId: Id.optional(),
    workflowId: Id.optional(),
    executionId: Id.optional(),
    stepId: Id.optional(),
  }),
  from: EmailAddress.optional(),
  fromName: DisplayName.optional(),
  replyTo: EmailAddress.optional(),
  templateId: Id.optional(),
  subject: z.string().min(1).max(998).optional(),
  body: LiquidSource().optional(),
  /** Marketing mail carries List-Unsubscribe and is never sent to an unsubscribed contact. */
  marketing: z.boolean(),
  /** Off: no open pixel and no click rewriting for this email (the project setting applies otherwise). */
  tracking: z.boolean().optional(),
  /** A topic campaign's topic: its unsubscribe links leave that topic only. */
  topicId: Id.optional(),
});

/** Who one email goes to, and the key that makes a retried enqueue of it return the first email. */
const Recipient = z.object({
  idempotencyKey: z.string().min(1).max(300),
  to: EmailAddress,
  /** Null for a campaign test copy sent to an address that is not a contact. */
  contactId: Id.nullable(),
  /** Template variables (contact data plus execution context); links are added by the service. */
  data: JsonObject,
});

const contentGiven = (req: { templateId?: string; subject?: string; body?: string }, ctx: z.RefinementCtx) => {
  if (req.templateId !== undefined) return;
  for (const key of ["subject", "body"] as const) {
    if (req[key] === undefined) ctx.addIssue({ code: "custom", path: [key], message: "required without templateId" });
  }
};

/**
 * One delivery job from another service (campaign recipient, workflow SEND_EMAIL, campaign test).
 * The sending service stores the email record and queues the job; `idempotencyKey` makes a retried
 * enqueue (after a redelivered message or a timeout) return the first `emailId` instead of a second mail.
 */
export const EnqueueEmailRpcRequest = EmailContent.extend(Recipient.shape).superRefine(contentGiven);
export type EnqueueEmailRpcRequest = z.infer<typeof EnqueueEmailRpcRequest>;

export const EnqueueEmailRpcReply = z.object({ emailId: z.string() });
export type EnqueueEmailRpcReply = z.infer<typeof EnqueueEmailRpcReply>;

/**
 * Many recipients of the same content (a page of a campaign's audience) in one call: one template
 * and sender check, one transaction for every record and job. Each recipient keeps its own
 * idempotency key. `results` follows `recipients` in order; a recipient whose own email cannot be
 * made (its data breaks the template, say) gets an error and the others still go out.
 */
export const EnqueueBatchRpcRequest = EmailContent.extend({ recipients: z.array(Recipient).min(1).max(1000) }).superRefine(contentGiven);
export type EnqueueBatchRpcRequest = z.infer<typeof EnqueueBatchRpcRequest>;
export const EnqueueBatchResult = z.union([
  z.object({ emailId: z.string() }),
  z.object({ error: z.object({ code: ErrorCode, message: z.string() }) }),
]);
export type EnqueueBatchResult = z.infer<typeof EnqueueBatchResult>;
export const EnqueueBatchRpcReply = z.object({ results: z.array(EnqueueBatchResult) });
export type EnqueueBatchRpcReply = z.infer<typeof EnqueueBatchRpcReply>;

export const TemplateExistsRpcRequest = z.object({ projectId: Id, templateId: Id });
export type TemplateExistsRpcRequest = z.infer<typeof TemplateExistsRpcRequest>;
export const TemplateExistsRpcReply = z.object({ exists: z.boolean(), type: TemplateType.nullable() });
export type TemplateExistsRpcReply = z.infer<typeof TemplateExistsRpcReply>;

export const DomainVerifiedRpcRequest = z.object({ projectId: Id, email: EmailAddress });
export type DomainVerifiedRpcRequest = z.infer<typeof DomainVerifiedRpcRequest>;
export const DomainVerifiedRpcReply = z.object({ verified: z.boolean() });
export type DomainVerifiedRpcReply = z.infer<typeof DomainVerifiedRpcReply>;

/** Admin only (the CLI's demo project): marks a domain verified without a DNS lookup, adding it first
 * when missing. Never reachable over HTTP. */
export const ForceVerifyDomainRpcRequest = z.object({ projectId: Id, domain: DomainName });
export type ForceVerifyDomainRpcRequest = z.infer<typeof ForceVerifyDomainRpcRequest>;
export const ForceVerifyDomainRpcReply = z.object({ domain: Domain });
export type ForceVerifyDomainRpcReply = z.infer<typeof ForceVerifyDomainRpcReply>;

/**
 * Hook answered by the workflows service (when it exists): whether a SEND_EMAIL step of any workflow
 * of the project uses the template. The sending service asks it before deleting a template and takes
 * "no responder" as "not used", so templates can be deleted before the workflows service is deployed.
 */
export const TemplateInUseRpcRequest = z.object({ projectId: Id, templateId: Id });
export type TemplateInUseRpcRequest = z.infer<typeof TemplateInUseRpcRequest>;
export const TemplateInUseRpcReply = z.object({ inUse: z.boolean() });
export type TemplateInUseRpcReply = z.infer<typeof TemplateInUseRpcReply>;

/**
 * The gateway's own mail (an invitation to a project, decisions.md §13), sent through Mailroom
 * itself from the sending service's SYSTEM_FROM address, which needs no verified domain in the
 * project. Recorded as a transactional email of `projectId`, never tracked. `idempotencyKey` makes
 * a retried call return the first email.
 */
export const SystemEmailRpcRequest = z.object({
  projectId: Id,
  idempotencyKey: z.string().min(1).max(300),
  to: EmailAddress,
  subject: z.string().min(1).max(998),
  html: z.string().min(1).max(100_000),
});
export type SystemEmailRpcRequest = z.infer<typeof SystemEmailRpcRequest>;
export const SystemEmailRpcReply = z.object({ emailId: z.string() });
export type SystemEmailRpcReply = z.infer<typeof SystemEmailRpcReply>;

/** Clicks per link of a campaign's emails, asked by the campaigns service once it has checked the
 * campaign is the project's (`GET /campaigns/{id}/links`). At most `limit` links, most clicked first. */
export const CampaignLinksRpcRequest = z.object({ projectId: Id, campaignId: Id, limit: z.number().int().min(1).max(1000).default(200) });
export type CampaignLinksRpcRequest = z.infer<typeof CampaignLinksRpcRequest>;
export const CampaignLinksRpcReply = z.object({
  data: z.array(z.object({ url: z.string(), clicks: z.number().int().nonnegative(), uniqueClicks: z.number().int().nonnegative() })),
});
export type CampaignLinksRpcReply = z.infer<typeof CampaignLinksRpcReply>;

/**
 * A campaign's recipients held back right now by a limit of a mailbox provider (a warm-up cap, or
 * waiting for its connections or rate; decisions.md §18), per provider: what GET /campaigns/{id}
 * shows as `stats.throttled`.
 */
export const CampaignThrottledRpcRequest = z.object({ projectId: Id, campaignId: Id });
export type CampaignThrottledRpcRequest = z.infer<typeof CampaignThrottledRpcRequest>;
export const CampaignThrottledRpcReply = z.object({ throttled: z.record(z.string(), z.number().int().nonnegative()) });
export type CampaignThrottledRpcReply = z.infer<typeof CampaignThrottledRpcReply>;

/** A project's double opt-in setting, asked by the contacts service when a public key subscribes. */
export const DoubleOptInRpcRequest = z.object({ projectId: Id });
export type DoubleOptInRpcRequest = z.infer<typeof DoubleOptInRpcRequest>;
export const DoubleOptInRpcReply = z.object({ enabled: z.boolean(), templateId: z.string().nullable() });
export type DoubleOptInRpcReply = z.infer<typeof DoubleOptInRpcReply>;

/**
 * Mails a contact the double opt-in confirmation with its signed `/c/{token}` link: the project's
 * template when its sender is on a verified domain of the project, else Mailroom's fixed text from
 * SYSTEM_FROM (decisions.md §15). `idempotencyKey` makes a retried call return the first email.
 */
export const ConfirmationEmailRpcRequest = z.object({
  projectId: Id,
  contactId: Id,
  to: EmailAddress,
  idempotencyKey: z.string().min(1).max(300),
});
export type ConfirmationEmailRpcRequest = z.infer<typeof ConfirmationEmailRpcRequest>;
/**
 * `emailId` null: nothing was sent, because the address had its confirmation of the window already
 * (one per project and three across projects per 24 h, decisions.md §15). The caller answers as usual.
 */
export const ConfirmationEmailRpcReply = z.object({ emailId: z.string().nullable() });
export type ConfirmationEmailRpcReply = z.infer<typeof ConfirmationEmailRpcReply>;

/**
 * Admin only (`mailroom suppressions lift`): removes the address's suppressions in the project, a
 * complaint's included. Never reachable over HTTP: no key and no link lifts a complaint (§15).
 */
export const LiftSuppressionsRpcRequest = z.object({ projectId: Id, email: EmailAddress });
export type LiftSuppressionsRpcRequest = z.infer<typeof LiftSuppressionsRpcRequest>;
export const LiftSuppressionsRpcReply = z.object({ lifted: z.array(z.enum(["bounce", "complaint"])) });
export type LiftSuppressionsRpcReply = z.infer<typeof LiftSuppressionsRpcReply>;

export const sendingRpc = {
  doubleOptIn: defineRpc({ service: "sending", operation: "sending.doubleOptIn", request: DoubleOptInRpcRequest, reply: DoubleOptInRpcReply }),
  confirmationEmail: defineRpc({
    service: "sending",
    operation: "sending.confirmationEmail",
    request: ConfirmationEmailRpcRequest,
    reply: ConfirmationEmailRpcReply,
  }),
  /** Pre-send checks of a message (decisions.md §18): DNS and rspamd included, so callers give it MESSAGE_CHECKS_TIMEOUT_MS. */
  messageChecks: defineRpc({
    service: "sending",
    operation: "sending.messageChecks",
    request: MessageChecksRpcRequest,
    reply: MessageChecksRpcReply,
  }),
  campaignLinks: defineRpc({
    service: "sending",
    operation: "sending.campaignLinks",
    request: CampaignLinksRpcRequest,
    reply: CampaignLinksRpcReply,
  }),
  campaignThrottled: defineRpc({
    service: "sending",
    operation: "sending.campaignThrottled",
    request: CampaignThrottledRpcRequest,
    reply: CampaignThrottledRpcReply,
  }),
  enqueue: defineRpc({
    service: "sending",
    operation: "sending.enqueue",
    request: EnqueueEmailRpcRequest,
    reply: EnqueueEmailRpcReply,
  }),
  enqueueBatch: defineRpc({
    service: "sending",
    operation: "sending.enqueueBatch",
    request: EnqueueBatchRpcRequest,
    reply: EnqueueBatchRpcReply,
  }),
  templateExists: defineRpc({
    service: "sending",
    operation: "sending.templateExists",
    request: TemplateExistsRpcRequest,
    reply: TemplateExistsRpcReply,
  }),
  domainVerified: defineRpc({
    service: "sending",
    operation: "sending.domainVerified",
    request: DomainVerifiedRpcRequest,
    reply: DomainVerifiedRpcReply,
  }),
  templateInUse: defineRpc({
    service: "workflows",
    operation: "workflows.templateInUse",
    request: TemplateInUseRpcRequest,
    reply: TemplateInUseRpcReply,
  }),
  systemEmail: defineRpc({
    service: "sending",
    operation: "sending.systemEmail",
    request: SystemEmailRpcRequest,
    reply: SystemEmailRpcReply,
  }),
  forceVerifyDomain: defineRpc({
    service: "sending",
    operation: "sending.domains.forceVerify",
    request: ForceVerifyDomainRpcRequest,
    reply: ForceVerifyDomainRpcReply,
  }),
  liftSuppressions: defineRpc({
    service: "sending",
    operation: "sending.suppressions.lift",
    request: LiftSuppressionsRpcRequest,
    reply: LiftSuppressionsRpcReply,
  }),
};
