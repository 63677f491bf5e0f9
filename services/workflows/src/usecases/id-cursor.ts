import { AppError } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";

/**
 * The opaque cursor of a list ordered by time-ordered id (executions, webhook deliveries): the last
 * id of the page in base64url. A cursor that does not decode to an id is a 400, not an empty page.
 */
export const cursorOf = (id: string): string => Buffer.from(id).toString("base64url");

export function idOfCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!isId(id)) throw AppError.validation("Invalid cursor", [{ path: "query.cursor", message: "not a cursor of this list" }], "invalid_cursor");
  return id;
}
