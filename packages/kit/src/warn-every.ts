import type { Logger } from "./logger.js";

/**
 * A warning for a condition that repeats while it lasts (Redis down, a NATS permission missing):
 * logged at once, then at most once per interval, with how often it happened in between. The clock
 * restarts only when a line is written, so an outage that keeps failing stays visible once per
 * interval for as long as it lasts instead of going quiet after its first line.
 */
export function warnEvery(
  log: Pick<Logger, "warn">,
  intervalMs: number,
  message: string,
  now: () => number = Date.now,
): (err: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (err) => {
    const t = now();
    if (t - last < intervalMs) {
      suppressed++;
      return;
    }
    log.warn(suppressed ? { err: String(err), suppressed } : { err: String(err) }, message);
    last = t;
    suppressed = 0;
  };
}
