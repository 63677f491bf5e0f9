import { createHash, randomFillSync } from "node:crypto";
import { v7 } from "uuid";

/**
 * Random bytes drawn 4 KiB at a time: `v7()` alone asks the OS-backed generator for 16 bytes per id
 * (getRandomValues), about 2 µs each, and a write makes several ids. Same source, fewer calls.
 */
const POOL_BYTES = 16 * 256;
const pool = new Uint8Array(POOL_BYTES);
let taken = POOL_BYTES;
/** uuid's own monotonic state, kept here because ids made from given bytes do not update it. */
const state = { msecs: -Infinity, seq: 0 };

/** Time-ordered ids (UUIDv7): keyset pagination by id is also creation order, and indexes stay compact. */
export function newId(): string {
  if (taken === POOL_BYTES) {
    randomFillSync(pool);
    taken = 0;
  }
  const random = pool.subarray(taken, (taken += 16));
  // RFC 9562 method 1, as uuid does it: a 31-bit counter seeded at random for each new millisecond
  // and counting up within one, so ids of one process sort in the order they were made
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    state.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return v7({ random, msecs: state.msecs, seq: state.seq });
}

/**
 * The smallest UUIDv7 of `ms` (Unix milliseconds): every id `newId()` made at or after that time
 * sorts at or above it, every id made before sorts below, so a time-ordered table can be cut by time
 * through its primary key (`where id < idOfTime(cutoff)`) without an index on a timestamp.
 */
export function idOfTime(ms: number): string {
  const t = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7000-8000-000000000000`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids arrive from URLs; one that is not a UUID cannot exist, so callers answer 404 without a query. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && UUID_RE.test(value);
}

/**
 * The gateway's claim on a request's Idempotency-Key (`meta.idempotencyId`, the same on every
 * attempt), when it is an id: a service that makes it the id of what the request writes dedupes a
 * retry after a lost answer at that row's key.
 */
export function idempotencyIdOf(meta: { idempotencyId?: string }): string | undefined {
  return isId(meta.idempotencyId) ? meta.idempotencyId : undefined;
}

/**
 * A stable id for `name` of `base` (UUIDv8 from SHA-256): the same inputs always give the same id,
 * so an event that exactly one row transition emits (an email's `email.sent`) has an id that can be
 * derived again from the row, where its history is kept.
 */
export function derivedId(base: string, name: string): string {
  const h = createHash("sha256").update(base).update("\0").update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // version 8
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
