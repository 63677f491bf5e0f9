import { z } from "zod";
import { singleLine } from "../common.js";
import { LiquidSource } from "../liquid-source.js";

/**
 * A/B tests on campaigns (decisions.md §14). A campaign with `variants` and `abTest` sends each
 * variant to an even share of a random sample of its audience, waits, and sends the variant with the
 * higher rate of the metric to the rest.
 */
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 5;

/** One version of the campaign: its own subject and, when given, its own body (else the campaign's). */
export const CampaignVariant = z.object({
  subject: singleLine(998).min(1),
  body: LiquidSource().nullable().optional(),
});
export type CampaignVariant = z.infer<typeof CampaignVariant>;

export const CampaignVariants = z.array(CampaignVariant).min(MIN_VARIANTS).max(MAX_VARIANTS);

export const AB_METRICS = ["opened", "clicked"] as const;
export const AbMetric = z.enum(AB_METRICS);
export type AbMetric = z.infer<typeof AbMetric>;

export const AbTest = z.object({
  /** Share of the audience (rounded up) that receives the variants; the rest gets the winner. */
  samplePercent: z.number().int().min(1).max(50),
  /** The winner has the higher `metric` over its sample's emails sent (ties: the lower index). */
  metric: AbMetric,
  /** From the moment the whole sample is handed over for delivery until the winner is picked. */
  waitMinutes: z.number().int().min(5).max(10080),
});
export type AbTest = z.infer<typeof AbTest>;

/**
 * The stats of one variant's sample (the test itself: recipients of the winner's send to the rest
 * count in the campaign's `stats` only).
 */
/** What a campaign and each of its variants count. */
export const CampaignCounts = z.object({
  recipients: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  unsubscribed: z.number().int(),
  failed: z.number().int(),
});

export const VariantStats = CampaignCounts.extend({ index: z.number().int() });
export type VariantStats = z.infer<typeof VariantStats>;

/** Both or neither: a test needs its versions and its rules. */
export function checkAbPair(c: { variants?: unknown; abTest?: unknown }, ctx: z.RefinementCtx): void {
  const has = (v: unknown) => v !== undefined && v !== null;
  if (has(c.variants) && !has(c.abTest)) ctx.addIssue({ code: "custom", path: ["abTest"], message: "required with variants" });
  if (has(c.abTest) && !has(c.variants)) ctx.addIssue({ code: "custom", path: ["variants"], message: "required with abTest" });
}
