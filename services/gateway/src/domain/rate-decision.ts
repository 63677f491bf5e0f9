/** A rate limit's answer for one request (infra/rate-limiter.ts takes it from Redis). */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a request would be allowed (429) or the bucket is full again. */
  resetSeconds: number;
  /** False when Redis could not be asked and the request was let through (fail open). */
  enforced: boolean;
}
