import { v7 } from "uuid";

/** Time-ordered ids (UUIDv7): keyset pagination by id is also creation order, and indexes stay compact. */
export function newId(): string {
  return v7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids arrive from URLs; one that is not a UUID cannot exist, so callers answer 404 without a query. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && UUID_RE.test(value);
}
