import { AppError, type AbMetric, type AbTest, type CampaignVariant } from "@mailroom/contracts";

/** What an A/B campaign stores: both or neither (a test needs its versions and its rules). */
export interface AbSetup {
  variants: CampaignVariant[] | null;
  abTest: AbTest | null;
}

/**
 * Merges an edit into the stored test: a field the edit names replaces the stored one (null clears
 * it), and the result must still have both or neither.
 */
export function mergeAbTest(stored: AbSetup | null, edit: { variants?: CampaignVariant[] | null; abTest?: AbTest | null }): AbSetup {
  const merged: AbSetup = {
    variants: edit.variants !== undefined ? edit.variants : (stored?.variants ?? null),
    abTest: edit.abTest !== undefined ? edit.abTest : (stored?.abTest ?? null),
  };
  if (merged.variants && !merged.abTest) {
    throw AppError.validation("Request validation failed", [{ path: "abTest", message: "required with variants" }]);
  }
  if (merged.abTest && !merged.variants) {
    throw AppError.validation("Request validation failed", [{ path: "variants", message: "required with abTest" }]);
  }
  // a variant without a body is stored without one: it takes the campaign's body when sent
  if (merged.variants) merged.variants = merged.variants.map((v) => (v.body ? { subject: v.subject, body: v.body } : { subject: v.subject }));
  return merged;
}

/**
 * How many of an audience of `total` the test's sample takes: `percent` of it rounded up, at least
 * one per variant so that each version is tried, and never more than the audience.
 */
export function sampleSize(total: number, percent: number, variants: number): number {
  return Math.min(total, Math.max(variants, Math.ceil((total * percent) / 100)));
}

export interface VariantCounts {
  variant: number;
  sent: number;
  opened: number;
  clicked: number;
}

/**
 * The winner: the variant with the higher rate of the metric over its sample's emails sent (the
 * rate the dashboard shows), ties going to the lower index. A variant with nothing sent rates 0.
 */
export function pickWinner(counts: VariantCounts[], metric: AbMetric, variants: number): number {
  let best = 0;
  let bestRate = -1;
  for (let i = 0; i < variants; i++) {
    const c = counts.find((x) => x.variant === i);
    const rate = c && c.sent > 0 ? c[metric] / c.sent : 0;
    if (rate > bestRate) {
      best = i;
      bestRate = rate;
    }
  }
  return best;
}

/** The subject and body of one variant: its own body, or the campaign's when it has none. */
export function variantContent(c: { subject: string; body: string; variants: CampaignVariant[] | null }, index: number | null) {
  const v = index === null ? undefined : c.variants?.[index];
  return v ? { subject: v.subject, body: v.body ?? c.body } : { subject: c.subject, body: c.body };
}
