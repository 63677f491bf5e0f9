import { randomId } from "@mantine/hooks";
import { type AbMetric, type Campaign, type CreateCampaignRequest, MAX_VARIANTS, MIN_VARIANTS } from "@mailroom/contracts";

/** A variant in the composer: a body of its own only when `ownBody` (else the campaign's is sent). */
export interface VariantValues {
  /** A stable React key: variants can be removed from the middle. */
  key: string;
  subject: string;
  ownBody: boolean;
  body: string;
}

/** The composer's A/B test: off, or the variants and the test's rules (decisions.md §14). */
export interface AbValues {
  enabled: boolean;
  variants: VariantValues[];
  samplePercent: number;
  metric: AbMetric;
  waitMinutes: number;
}

export const variantLetter = (index: number) => String.fromCharCode(65 + index);

export function initialAb(c: Campaign | null): AbValues {
  if (c?.variants && c.abTest) {
    return {
      enabled: true,
      variants: c.variants.map((v) => ({ key: randomId(), subject: v.subject, ownBody: !!v.body, body: v.body ?? "" })),
      ...c.abTest,
    };
  }
  return { enabled: false, variants: [], samplePercent: 20, metric: "opened", waitMinutes: 240 };
}

/** Turning the test on starts from two variants, the first with the campaign's subject. */
export function enableAb(v: AbValues, subject: string): AbValues {
  const variants = v.variants.length >= MIN_VARIANTS ? v.variants : [newVariant(subject), newVariant("")];
  return { ...v, enabled: true, variants };
}

export const newVariant = (subject = ""): VariantValues => ({ key: randomId(), subject, ownBody: false, body: "" });

export const canAddVariant = (v: AbValues) => v.variants.length < MAX_VARIANTS;
export const canRemoveVariant = (v: AbValues) => v.variants.length > MIN_VARIANTS;

/** The request's `variants` and `abTest`: both null when the test is off, which also clears a stored one. */
export function abRequest(v: AbValues): Pick<CreateCampaignRequest, "variants" | "abTest"> {
  if (!v.enabled) return { variants: null, abTest: null };
  return {
    variants: v.variants.map((x) => ({ subject: x.subject, body: x.ownBody ? x.body : null })),
    abTest: { samplePercent: v.samplePercent, metric: v.metric, waitMinutes: v.waitMinutes },
  };
}

/** Where an API error about `variants…` or `abTest…` shows in the form (`ab.…`), or null for other fields. */
export function abFieldOf(path: string): string | null {
  if (path === "abTest") return "ab.enabled";
  if (path.startsWith("abTest.")) return `ab.${path.slice("abTest.".length)}`;
  if (path === "variants" || path.startsWith("variants.")) return `ab.${path}`;
  return null;
}
