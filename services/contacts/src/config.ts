import { z } from "zod";

/** Contacts-only settings (the shared ones come from @mailroom/kit's BaseEnv). */
export const ContactsEnv = z.object({
  /** Base of the signup forms' hosted pages (`<PUBLIC_URL>/f/{id}`), which post to themselves. */
  PUBLIC_URL: z.url().default("http://localhost:8080"),
  /**
   * How often the segment scheduler looks for contacts whose relative-time filters (`within`,
   * `triggeredWithin`, `olderThan`, …) flip; it bounds how late such an entry or exit is emitted.
   */
  SEGMENTS_TICK_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** CSV imports one replica runs at once (decisions.md §12: bounded per service; one per project). */
  IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * Imports a project may have RUNNING (one runs, the rest wait with their uploads in the blob
   * store); past it a new one is refused with 429, so one tenant cannot fill the store for all.
   */
  IMPORT_MAX_PENDING: z.coerce.number().int().min(1).max(100).default(3),
  /** Rows of the file one import transaction covers. */
  IMPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(50_000).default(5000),
  /** How long a dead runner's import waits before another replica (or the restarted one) takes it over. */
  IMPORT_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /**
   * A double opt-in confirmation whose call to sending failed is asked again after this, times its
   * attempts so far (up to ten times it).
   */
  CONFIRMATION_RETRY_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});
