/**
 * Slowing a provider that defers (decisions.md §18): additive increase, multiplicative decrease, as
 * TCP does. A run of 4xx answers halves the provider's rate; each minute without one gives back a
 * tenth of its limit, so a provider that throttled us is approached again slowly and a throttling
 * provider never turns half a campaign into deferrals and then bounces. The factor multiplies the
 * provider's perMinute (DELIVERY_LIMITS); the Redis script in delivery/provider-rate.ts computes the
 * same thing so every replica shares one factor per provider.
 */

/** The least a provider is slowed to: a thirty-second of its limit (five halvings). */
export const MIN_FACTOR = 1 / 32;
/** Given back per minute without a run of deferrals, as a share of the limit. */
export const GROWTH_PER_MINUTE = 0.1;
/** A run's deferrals come from messages already in flight: a second halving waits this long. */
export const CUT_COOLDOWN_MS = 5000;
/** Deferrals in a row (no message taken between them) that make a run. */
export const RUN_LENGTH = 3;

/** The factor in force `sinceCutMs` after it was last set to `factor`. */
export function effectiveFactor(factor: number, sinceCutMs: number): number {
  return Math.min(1, factor + (GROWTH_PER_MINUTE * Math.max(0, sinceCutMs)) / 60_000);
}

/** The factor after a run of deferrals, or null within the cool-down of the last cut (no change). */
export function afterRun(factor: number, sinceCutMs: number): number | null {
  if (sinceCutMs < CUT_COOLDOWN_MS) return null;
  return Math.max(MIN_FACTOR, effectiveFactor(factor, sinceCutMs) / 2);
}

/** The rate in force for a limit of `perMinute` at `factor`: never below one message a minute. */
export function slowedPerMinute(perMinute: number, factor: number): number {
  return Math.max(1, perMinute * factor);
}

/**
 * Counts one replica's answers from one provider: `deferred()` is true when this deferral completes a
 * run (RUN_LENGTH of them with no message taken between), and starts counting again.
 */
export class DeferralRun {
  private run = 0;

  deferred(): boolean {
    if (++this.run < RUN_LENGTH) return false;
    this.run = 0;
    return true;
  }

  taken(): void {
    this.run = 0;
  }
}
