import { z } from "zod";
import { defineRoute } from "../route.js";
import {
  DisplayName,
  EmailAddress,
  Id,
  IdParams,
  PageNumberQuery,
  SuccessEnvelope,
  Timestamp,
  pageShape,
  singleLine,
} from "../common.js";
import { FilterExpression } from "../filters.js";
import { MESSAGE_CHECKS_TIMEOUT_MS, PreSendChecks } from "../sending/checks.js";
import { LiquidSource } from "../liquid-source.js";
import { DeliverAt } from "../local-time.js";
import { AbTest, CampaignCounts, CampaignVariant, CampaignVariants, VariantStats, checkAbPair } from "./ab-test.js";

export const CAMPAIGN_STATUSES = ["DRAFT", "SCHEDULED", "SENDING", "SENT"] as const;
export const CampaignStatus = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

export const AUDIENCE_TYPES = ["ALL", "SEGMENT", "FILTERED"] as const;
export const AudienceType = z.enum(AUDIENCE_TYPES);
export type AudienceType = z.infer<typeof AudienceType>;

export const CampaignStats = CampaignCounts.extend({
  /**
   * Mailroom's addition: recipients not mailed because of the project's frequency cap (decisions.md
   * §18); they end the recipient's job like a failure, but are not one.
   */
  skipped: z.number().int(),
  /** Local-time delivery: recipients read from the audience and held until their local time comes. */
  waiting: z.number().int(),
  /**
   * Mailroom's addition (decisions.md §18), on GET /campaigns/{id} of a SENDING campaign only:
   * recipients held back right now by a mailbox provider's limit, per provider: by the sender
   * domain's warm-up cap (until the next day) or waiting for the provider's connections or rate in
   * the sending service. Absent when none are, or when the sending service did not answer.
   */
  throttled: z.record(z.string(), z.number().int()).optional(),
  /** One entry per variant of an A/B campaign, in variant order; empty otherwise. */
  variants: z.array(VariantStats),
});
export type CampaignStats = z.infer<typeof CampaignStats>;

export const Campaign = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  /** The audience type; the request field for it is `audienceType` (api-spec). */
  type: AudienceType,
  segmentId: z.string().nullable(),
  audienceFilter: FilterExpression.nullable(),
  /** A topic campaign reaches only subscribed contacts opted into the topic; its one-click leaves that topic only. */
  topicId: z.string().nullable(),
  status: CampaignStatus,
  scheduledAt: Timestamp.nullable(),
  sentAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  stats: CampaignStats,
  /** A/B test: null for a plain campaign. */
  variants: z.array(CampaignVariant).nullable(),
  abTest: AbTest.nullable(),
  /** The index of the variant sent to the rest of the audience, once the test's wait is over. */
  winnerVariant: z.number().int().nullable(),
  /** When the test's wait ends and the winner is picked: null until the whole sample is handed over. */
  winnerDueAt: Timestamp.nullable(),
  /** Local-time delivery; null: everyone is mailed as soon as the campaign sends. */
  deliverAt: DeliverAt.nullable(),
});
export type Campaign = z.infer<typeof Campaign>;

const campaignFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable().optional(),
  subject: singleLine(998).min(1),
  body: LiquidSource(),
  from: EmailAddress,
  fromName: DisplayName.nullable().optional(),
  replyTo: EmailAddress.nullable().optional(),
  audienceType: AudienceType,
  segmentId: Id.nullable().optional(),
  audienceFilter: FilterExpression.nullable().optional(),
  topicId: Id.nullable().optional(),
  variants: CampaignVariants.nullable().optional(),
  abTest: AbTest.nullable().optional(),
  /** Not with an A/B test: its sample's wait would have to outlast every recipient's local time. */
  deliverAt: DeliverAt.nullable().optional(),
};

export const CreateCampaignRequest = z.object(campaignFields).superRefine((c, ctx) => {
  if (c.audienceType === "SEGMENT" && !c.segmentId) {
    ctx.addIssue({ code: "custom", path: ["segmentId"], message: "required when audienceType is SEGMENT" });
  }
  if (c.audienceType === "FILTERED" && !c.audienceFilter) {
    ctx.addIssue({ code: "custom", path: ["audienceFilter"], message: "required when audienceType is FILTERED" });
  }
  checkAbPair(c, ctx);
  checkDeliverAt(c, ctx);
});

/** Local-time delivery and an A/B test exclude each other (the create request; updates: the service). */
function checkDeliverAt(c: { deliverAt?: unknown; abTest?: unknown }, ctx: z.RefinementCtx): void {
  if (c.deliverAt != null && c.abTest != null) ctx.addIssue({ code: "custom", path: ["deliverAt"], message: "cannot be combined with an A/B test" });
}
export type CreateCampaignRequest = z.infer<typeof CreateCampaignRequest>;

/** Whether the merged campaign still has the audience its type needs, and both or neither of
 * `variants` and `abTest`, is checked by the service, which knows the stored values. */
export const UpdateCampaignRequest = z.object(campaignFields).partial();
export type UpdateCampaignRequest = z.infer<typeof UpdateCampaignRequest>;

export const ListCampaignsQuery = PageNumberQuery.extend({ status: CampaignStatus.optional() });
export type ListCampaignsQuery = z.infer<typeof ListCampaignsQuery>;

export const CampaignList = pageShape("campaigns", Campaign);
export type CampaignList = z.infer<typeof CampaignList>;

/** Omitted or null: send now. The body itself is optional. */
export const SendCampaignRequest = z.object({ scheduledFor: Timestamp.nullable().optional() }).default({});
export type SendCampaignRequest = z.infer<typeof SendCampaignRequest>;

export const TestCampaignRequest = z.object({
  email: EmailAddress,
  /** An A/B campaign's variant whose subject and body the copy carries (the campaign's own when omitted). */
  variant: z.number().int().min(0).max(4).optional(),
});
export type TestCampaignRequest = z.infer<typeof TestCampaignRequest>;

export const CampaignResponse = SuccessEnvelope(Campaign);
export const TestCampaignResponse = SuccessEnvelope(z.object({ emailId: z.string() }));

/** Clicks per tracked link of a campaign's emails (decisions.md §13), most clicked first. */
export const LinkClicks = z.object({ url: z.string(), clicks: z.number().int().nonnegative(), uniqueClicks: z.number().int().nonnegative() });
export type LinkClicks = z.infer<typeof LinkClicks>;
export const CampaignLinks = z.object({ data: z.array(LinkClicks) });
export type CampaignLinks = z.infer<typeof CampaignLinks>;

const base = { service: "campaigns", auth: "secret", tag: "Campaigns" } as const;

export const campaignRoutes = [
  defineRoute({
    ...base,
    method: "GET",
    path: "/campaigns",
    operation: "campaigns.list",
    summary: "List campaigns",
    query: ListCampaignsQuery,
    response: CampaignList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/campaigns",
    operation: "campaigns.create",
    summary: "Create a campaign (DRAFT)",
    body: CreateCampaignRequest,
    response: CampaignResponse,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/campaigns/:id",
    operation: "campaigns.get",
    summary: "Get a campaign",
    params: IdParams,
    response: Campaign,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/campaigns/:id",
    operation: "campaigns.update",
    summary: "Update a DRAFT campaign",
    params: IdParams,
    body: UpdateCampaignRequest,
    response: Campaign,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/campaigns/:id",
    operation: "campaigns.delete",
    summary: "Delete a DRAFT campaign",
    params: IdParams,
    status: 204,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/campaigns/:id/send",
    operation: "campaigns.send",
    summary: "Send a campaign now or schedule it",
    params: IdParams,
    body: SendCampaignRequest,
    response: CampaignResponse,
    status: 200,
    idempotent: true,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/campaigns/:id/cancel",
    operation: "campaigns.cancel",
    summary: "Move a SCHEDULED campaign back to DRAFT",
    params: IdParams,
    response: CampaignResponse,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/campaigns/:id/test",
    operation: "campaigns.test",
    summary: "Send one test copy to an address",
    params: IdParams,
    body: TestCampaignRequest,
    response: TestCampaignResponse,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/campaigns/:id/links",
    operation: "campaigns.links",
    summary: "Clicks per link of a campaign's emails",
    params: IdParams,
    response: CampaignLinks,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/campaigns/:id/checks",
    operation: "campaigns.checks",
    summary: "Pre-send checks: sender authentication, unsubscribe, size, images, links, spam score",
    params: IdParams,
    response: PreSendChecks,
    status: 200,
    // DNS and rspamd inside: the sending service's own bound plus the hop from campaigns
    timeoutMs: MESSAGE_CHECKS_TIMEOUT_MS + 2000,
  }),
];
