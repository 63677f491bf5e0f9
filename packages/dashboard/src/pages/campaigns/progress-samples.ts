import type { CampaignStats } from "@mailroom/contracts";

/** One reading of a campaign's counts while the page watched it send. */
export interface Sample {
  at: number;
  sent: number;
  delivered: number;
  failed: number;
}

/** At most this many readings are kept (a second apart: over 16 minutes of sending). */
export const MAX_SAMPLES = 1000;

/** The readings with one more; an unchanged count adds nothing, so a long quiet stretch keeps few points. */
export function addSample(samples: readonly Sample[], at: number, s: CampaignStats): readonly Sample[] {
  const last = samples[samples.length - 1];
  if (last && last.sent === s.sent && last.delivered === s.delivered && last.failed === s.failed) return samples;
  const next = [...samples, { at, sent: s.sent, delivered: s.delivered, failed: s.failed }];
  return next.length > MAX_SAMPLES ? next.slice(next.length - MAX_SAMPLES) : next;
}

/** Emails processed (sent, failed, or skipped by the frequency cap) out of the recipients, as a percentage 0–100. */
export function processedPercent(s: CampaignStats): number {
  return s.recipients > 0 ? Math.min(100, ((s.sent + s.failed + s.skipped) / s.recipients) * 100) : 0;
}
