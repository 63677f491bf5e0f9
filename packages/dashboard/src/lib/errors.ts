import type { ErrorCode, ErrorDetail } from "@mailroom/contracts";
import { ApiError } from "../api/errors";

/**
 * What a person reads when a call fails: a short title, the server's message, and where there is
 * one, the next step (a link inside the app). Pure, so the wording is unit-tested without a DOM.
 */
export interface ErrorAdvice {
  title: string;
  message: string;
  /** An app path (router-relative, e.g. `/domains`) that fixes the problem. */
  link?: { to: string; label: string };
}

const TITLES: Record<ErrorCode, string> = {
  UNAUTHORIZED: "Please sign in again",
  FORBIDDEN: "Your role does not allow this",
  VALIDATION_ERROR: "Check what you entered",
  NOT_FOUND: "Not found",
  CONFLICT: "That conflicts with what is already there",
  WORKFLOW_LOCKED: "The workflow has active executions",
  INVALID_STATE: "Not possible right now",
  DOMAIN_NOT_VERIFIED: "The sender's domain is not verified",
  IDEMPOTENCY_KEY_REUSED: "That request was already made with other content",
  PAYLOAD_TOO_LARGE: "That is too large",
  RATE_LIMITED: "Too many attempts",
  SERVICE_UNAVAILABLE: "Mailroom is unavailable right now",
  INTERNAL_ERROR: "Something went wrong",
};

/** "45 seconds", "1 minute", "15 minutes": how long a 429 asks to wait, rounded up. */
export function waitText(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return "a moment";
  if (seconds < 60) {
    const s = Math.ceil(seconds);
    return `${s} second${s === 1 ? "" : "s"}`;
  }
  const m = Math.ceil(seconds / 60);
  return `${m} minute${m === 1 ? "" : "s"}`;
}

export function adviceFor(err: unknown): ErrorAdvice {
  if (!(err instanceof ApiError)) {
    return { title: TITLES.INTERNAL_ERROR, message: err instanceof Error ? err.message : "An unexpected error occurred" };
  }
  const title = TITLES[err.error];
  switch (err.error) {
    case "WORKFLOW_LOCKED":
      return { title, message: `${err.message}. Cancel the active executions or wait for them to finish, then edit.` };
    case "DOMAIN_NOT_VERIFIED":
      return {
        title,
        message: `${err.message}. Verify the sender's domain on the Domains page, then try again.`,
        link: { to: "/domains", label: "Open Domains" },
      };
    case "FORBIDDEN":
      return { title, message: `${err.message}. Ask a project owner if you need this.` };
    case "RATE_LIMITED":
      return { title, message: `Too many attempts, try again in ${waitText(err.retryAfterSeconds)}.` };
    default:
      return { title, message: err.message };
  }
}

/** Every leaf path of a form's values, in the `details[].path` notation (`steps.0.subject`). */
export function fieldPaths(values: unknown, prefix = ""): string[] {
  if (values === null || typeof values !== "object") return prefix ? [prefix] : [];
  const entries = Array.isArray(values) ? values.map((v, i) => [String(i), v] as const) : Object.entries(values);
  const paths = prefix ? [prefix] : [];
  for (const [k, v] of entries) paths.push(...fieldPaths(v, prefix ? `${prefix}.${k}` : k));
  return paths;
}

/**
 * Splits an error's `details` between the form's fields and the rest: a detail goes to the field of
 * its path, or of the nearest enclosing path the form has (`data.note` → `data`); messages for one
 * field are joined. What matches no field is left for a notification.
 */
export function splitDetails(details: readonly ErrorDetail[], fields: readonly string[]): { fieldErrors: Record<string, string>; rest: ErrorDetail[] } {
  const known = new Set(fields);
  const fieldErrors: Record<string, string> = {};
  const rest: ErrorDetail[] = [];
  for (const d of details) {
    const parts = d.path.split(".");
    let field: string | undefined;
    for (let n = parts.length; n > 0 && field === undefined; n--) {
      const candidate = parts.slice(0, n).join(".");
      if (candidate && known.has(candidate)) field = candidate;
    }
    if (field === undefined) rest.push(d);
    else fieldErrors[field] = fieldErrors[field] ? `${fieldErrors[field]}; ${d.message}` : d.message;
  }
  return { fieldErrors, rest };
}
