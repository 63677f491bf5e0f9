import { ApiError } from "../../../api/errors";
import { type ErrorAdvice, adviceFor } from "../../../lib/errors";

/**
 * What a refused upload says: the general wording (lib/errors.ts) except where an import has its
 * own next step — a file past the server's limit, or a project already at its running imports.
 */
export function uploadAdvice(err: unknown): ErrorAdvice {
  const advice = adviceFor(err);
  if (!(err instanceof ApiError)) return advice;
  if (err.status === 413) return { title: "The file is too large", message: `${err.message}. Split the file into smaller ones and import each.` };
  if (err.status === 429 && err.reason === "imports_pending") {
    return { title: "Other imports are still running", message: `${err.message}.` };
  }
  return advice;
}
