/**
 * How long an email waits after its relay answered 4xx (decisions.md §18): 1, 5, 15 and 60 minutes,
 * then every 2 hours, until DELIVERY_MAX_AGE from when it was queued; then it expires (a transient
 * bounce, and the email fails). Mailbox providers throttle with 421/451 and expect the sender to come
 * back later, not at once: a quick retry loop is what turns throttling into bounces.
 */
const FIRST_MINUTES = [1, 5, 15, 60];
const THEN_EVERY_MINUTES = 120;
const MINUTE_MS = 60_000;

/** The wait after the `n`th 4xx of an email (1-based), divided by `timeScale` (tests only). */
export function deferralDelayMs(n: number, timeScale = 1): number {
  const minutes = FIRST_MINUTES[Math.max(0, n - 1)] ?? THEN_EVERY_MINUTES;
  return (minutes * MINUTE_MS) / timeScale;
}

/** The 4xx answers an email can get before its age runs out: how many retries a job must be allowed. */
export function deferralsWithin(maxAgeMs: number, timeScale = 1): number {
  let n = 0;
  for (let waited = 0; waited < maxAgeMs; waited += deferralDelayMs(n, timeScale)) n++;
  return n;
}

/**
 * What a 4xx makes of an email queued at `queuedAt` that has had `n` of them: a retry after a
 * delay, or its end when that retry would come after its maximum age.
 */
export function afterDeferral(n: number, queuedAt: Date, now: Date, maxAgeMs: number, timeScale = 1): { retryInMs: number } | { expired: true } {
  const retryInMs = deferralDelayMs(n, timeScale);
  return now.getTime() + retryInMs > queuedAt.getTime() + maxAgeMs ? { expired: true } : { retryInMs };
}

/** Whether a relay error is a 4xx reply (a deferral), as opposed to a 5xx or no reply at all. */
export function isDeferral(err: unknown): boolean {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === "number" && code >= 400 && code < 500;
}

/** `72h`, `30m`, `45s`, `500ms` or a number of milliseconds, as DELIVERY_MAX_AGE is written. */
export function parseDuration(raw: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!m) return null;
  const unit = { ms: 1, s: 1000, m: MINUTE_MS, h: 60 * MINUTE_MS, d: 24 * 60 * MINUTE_MS }[(m[2] ?? "ms") as "ms"];
  return Math.round(Number(m[1]) * unit);
}
