import { z } from "zod";
import { defineRoute } from "../route.js";
import { CursorPageQuery, Id, IdParams, Timestamp, cursorPage } from "../common.js";

/** Statuses only move forward, in this order (FAILED ends a QUEUED email). */
export const EMAIL_STATUSES = ["QUEUED", "SENT", "DELIVERED", "OPENED", "CLICKED", "BOUNCED", "COMPLAINED", "FAILED"] as const;
export const EmailStatus = z.enum(EMAIL_STATUSES);
export type EmailStatus = z.infer<typeof EmailStatus>;

export const EMAIL_SOURCE_TYPES = ["TRANSACTIONAL", "CAMPAIGN", "WORKFLOW"] as const;
export const EmailSourceType = z.enum(EMAIL_SOURCE_TYPES);
export type EmailSourceType = z.infer<typeof EmailSourceType>;

/** The email record (decisions.md §5). */
export const Email = z.object({
  id: z.string(),
  /** Null once the contact has been deleted, or for a campaign test copy to a non-contact. */
  contactId: z.string().nullable(),
  to: z.string(),
  from: z.string(),
  subject: z.string(),
  templateId: z.string().nullable(),
  campaignId: z.string().nullable(),
  workflowId: z.string().nullable(),
  sourceType: EmailSourceType,
  status: EmailStatus,
  messageId: z.string().nullable(),
  sentAt: Timestamp.nullable(),
  deliveredAt: Timestamp.nullable(),
  openedAt: Timestamp.nullable(),
  clickedAt: Timestamp.nullable(),
  bouncedAt: Timestamp.nullable(),
  complainedAt: Timestamp.nullable(),
  opens: z.number().int(),
  clicks: z.number().int(),
  createdAt: Timestamp,
});
export type Email = z.infer<typeof Email>;

export const ListEmailsQuery = CursorPageQuery.extend({
  contactId: Id.optional(),
  campaignId: Id.optional(),
  status: EmailStatus.optional(),
  /** A substring of the recipient's address, case-insensitive (decisions.md §13). */
  to: z.string().trim().min(1).max(254).optional(),
});
export type ListEmailsQuery = z.infer<typeof ListEmailsQuery>;

export const EmailList = cursorPage(Email);
export type EmailList = z.infer<typeof EmailList>;

/** What happened to an email, in the order of its timeline (`GET /emails/{id}/events`). */
export const EMAIL_EVENT_TYPES = ["QUEUED", "SENT", "DELIVERED", "OPENED", "CLICKED", "BOUNCED", "COMPLAINED", "FAILED", "UNSUBSCRIBED"] as const;
export const EmailEventType = z.enum(EMAIL_EVENT_TYPES);
export type EmailEventType = z.infer<typeof EmailEventType>;

export const EmailEvent = z.object({
  id: z.string(),
  emailId: z.string(),
  type: EmailEventType,
  occurredAt: Timestamp,
  /** The event's details: the link clicked, the bounce's type and diagnostic, the failure's reason. */
  details: z.record(z.string(), z.unknown()),
});
export type EmailEvent = z.infer<typeof EmailEvent>;
export const EmailEventList = z.object({ data: z.array(EmailEvent) });
export type EmailEventList = z.infer<typeof EmailEventList>;

export const DOMAIN_STATUSES = ["PENDING", "VERIFIED"] as const;
export const DomainStatus = z.enum(DOMAIN_STATUSES);
export type DomainStatus = z.infer<typeof DomainStatus>;

export const DnsRecord = z.object({
  type: z.enum(["TXT", "MX", "CNAME"]),
  name: z.string(),
  value: z.string(),
  purpose: z.enum(["dkim", "spf", "dmarc"]),
  /** Set by the latest lookup; absent before the first one. */
  found: z.boolean().optional(),
});
export type DnsRecord = z.infer<typeof DnsRecord>;

export const Domain = z.object({
  id: z.string(),
  domain: z.string(),
  status: DomainStatus,
  records: z.array(DnsRecord),
  createdAt: Timestamp,
  verifiedAt: Timestamp.nullable(),
  /**
   * Warm-up (decisions.md §18): a daily cap per mailbox provider that starts at 50 and doubles each
   * day with few bounces and complaints; mail over it waits for the next day.
   */
  warmup: z.boolean(),
});
export type Domain = z.infer<typeof Domain>;

/** A DNS name with at least two labels, stored lower case (punycode for IDNs). */
export const DomainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]*[a-z][a-z0-9-]*$/, { message: "must be a domain name" });

export const CreateDomainRequest = z.object({ domain: DomainName, warmup: z.boolean().optional() });
export type CreateDomainRequest = z.infer<typeof CreateDomainRequest>;

/** What PATCH /domains/{id} may change. */
export const UpdateDomainRequest = z.object({ warmup: z.boolean() });
export type UpdateDomainRequest = z.infer<typeof UpdateDomainRequest>;

/** Not paged: a project has few domains. */
export const DomainList = z.object({ data: z.array(Domain) });
export type DomainList = z.infer<typeof DomainList>;

const base = { service: "sending", auth: "secret" } as const;

export const emailRoutes = [
  defineRoute({
    ...base,
    method: "GET",
    path: "/emails",
    operation: "sending.emails.list",
    tag: "Emails",
    summary: "List email records",
    query: ListEmailsQuery,
    response: EmailList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/emails/:id",
    operation: "sending.emails.get",
    tag: "Emails",
    summary: "Get an email record",
    params: IdParams,
    response: Email,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/emails/:id/events",
    operation: "sending.emails.events",
    tag: "Emails",
    summary: "An email's events in the order they happened",
    params: IdParams,
    response: EmailEventList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/domains",
    operation: "sending.domains.create",
    role: "owner",
    tag: "Domains",
    summary: "Add a sending domain (generates its DKIM key)",
    body: CreateDomainRequest,
    response: Domain,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/domains",
    operation: "sending.domains.list",
    tag: "Domains",
    summary: "List sending domains",
    response: DomainList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/domains/:id",
    operation: "sending.domains.get",
    tag: "Domains",
    summary: "Get a sending domain",
    params: IdParams,
    response: Domain,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/domains/:id",
    operation: "sending.domains.update",
    role: "owner",
    tag: "Domains",
    summary: "Change a sending domain's settings (warm-up)",
    params: IdParams,
    body: UpdateDomainRequest,
    response: Domain,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/domains/:id/verify",
    operation: "sending.domains.verify",
    role: "owner",
    tag: "Domains",
    summary: "Look the domain's DNS records up now",
    params: IdParams,
    response: Domain,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/domains/:id",
    operation: "sending.domains.delete",
    role: "owner",
    tag: "Domains",
    summary: "Delete a sending domain",
    params: IdParams,
    status: 204,
  }),
];
