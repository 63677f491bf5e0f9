import { ErrorBody, type ErrorCode, type ErrorDetail } from "@mailroom/contracts";

/**
 * Every failed API call, whatever went wrong: the gateway's Error object when it answered one, or a
 * stand-in for an answer that was not one (a proxy's HTML 502, a dropped connection) so callers
 * handle one shape.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly error: ErrorCode;
  readonly details: ErrorDetail[];
  readonly reason: string | undefined;
  /** Seconds from a 429's Retry-After header, when it had one. */
  retryAfterSeconds: number | undefined;

  constructor(status: number, error: ErrorCode, message: string, details: ErrorDetail[] = [], reason?: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.error = error;
    this.details = details;
    this.reason = reason;
  }

  /** The answer's body as the gateway sent it; anything not an Error object becomes one by status. */
  static fromResponse(status: number, body: unknown, retryAfter?: string | null): ApiError {
    const err = ApiError.fromBody(status, body);
    const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
    if (Number.isFinite(seconds) && seconds >= 0) err.retryAfterSeconds = Math.ceil(seconds);
    return err;
  }

  private static fromBody(status: number, body: unknown): ApiError {
    const parsed = ErrorBody.safeParse(body);
    if (parsed.success) {
      const b = parsed.data;
      return new ApiError(status, b.error, b.message, b.details ?? [], b.reason);
    }
    if (status === 401) return new ApiError(status, "UNAUTHORIZED", "Please sign in again");
    if (status === 429) return new ApiError(status, "RATE_LIMITED", "Too many requests, try again shortly");
    if (status === 502 || status === 503 || status === 504) {
      return new ApiError(status, "SERVICE_UNAVAILABLE", "Mailroom is unavailable right now, try again shortly");
    }
    return new ApiError(status, "INTERNAL_ERROR", `Unexpected answer from the server (HTTP ${status})`);
  }

  /** The request never got an answer (offline, connection reset). */
  static network(cause: unknown): ApiError {
    const err = new ApiError(0, "SERVICE_UNAVAILABLE", "Could not reach Mailroom, check your connection and try again");
    err.cause = cause;
    return err;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
