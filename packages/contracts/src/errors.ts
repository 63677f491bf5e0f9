import { z } from "zod";

/**
 * The `error` values of the Error object (decisions.md §2). Clients switch on these strings:
 * never rename one; add new ones only with a matching HTTP status below.
 */
export const ErrorCode = z.enum([
  "UNAUTHORIZED",
  "FORBIDDEN",
  "VALIDATION_ERROR",
  "NOT_FOUND",
  "CONFLICT",
  "WORKFLOW_LOCKED",
  "INVALID_STATE",
  "DOMAIN_NOT_VERIFIED",
  "IDEMPOTENCY_KEY_REUSED",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  "SERVICE_UNAVAILABLE",
  "INTERNAL_ERROR",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The one mapping from error value to HTTP status. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  WORKFLOW_LOCKED: 409,
  INVALID_STATE: 409,
  DOMAIN_NOT_VERIFIED: 403,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

export const ErrorDetail = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** The Error object of the spec, plus the optional `details` and `reason` of decisions.md §2. */
export const ErrorBody = z.object({
  code: z.number().int(),
  error: ErrorCode,
  message: z.string(),
  time: z.number().int(),
  details: z.array(ErrorDetail).optional(),
  reason: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** What crosses NATS when a handler fails: the Error object minus the parts the gateway stamps. */
export const WireError = z.object({
  error: ErrorCode,
  message: z.string(),
  details: z.array(ErrorDetail).optional(),
  reason: z.string().optional(),
});
export type WireError = z.infer<typeof WireError>;

/**
 * The one error type of Mailroom. Domain code throws (or returns) it; the RPC layer turns it into a
 * WireError and the gateway turns that into the HTTP Error object. Anything else thrown is a bug
 * and becomes INTERNAL_ERROR with no internal detail.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly reason: string | undefined;

  constructor(code: ErrorCode, message: string, extra: { details?: ErrorDetail[]; reason?: string } = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = extra.details;
    this.reason = extra.reason;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toWire(): WireError {
    const wire: WireError = { error: this.code, message: this.message };
    if (this.details) wire.details = this.details;
    if (this.reason) wire.reason = this.reason;
    return wire;
  }

  static fromWire(wire: WireError): AppError {
    return new AppError(wire.error, wire.message, { details: wire.details, reason: wire.reason });
  }

  static notFound(what: string): AppError {
    return new AppError("NOT_FOUND", `${what} not found`);
  }

  static validation(message: string, details?: ErrorDetail[], reason?: string): AppError {
    return new AppError("VALIDATION_ERROR", message, { details, reason });
  }
}

export function toErrorBody(err: WireError): ErrorBody {
  return { code: ERROR_STATUS[err.error], ...err, time: Date.now() };
}

/** zod issues → the `details` array (path joined with dots, array indexes as numbers). */
export function zodDetails(error: z.ZodError, prefix?: string): ErrorDetail[] {
  return error.issues.map((issue) => {
    const parts = [prefix, ...issue.path.map(String)].filter((p) => p !== undefined && p !== "");
    return { path: parts.join("."), message: issue.message };
  });
}
