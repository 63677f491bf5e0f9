import { z } from "zod";

/** Contacts-only settings (the shared ones come from @mailroom/kit's BaseEnv). */
export const ContactsEnv = z.object({
  /**
   * How often the segment scheduler looks for contacts whose relative-time filters (`within`,
   * `triggeredWithin`, `olderThan`, …) flip; it bounds how late such an entry or exit is emitted.
   */
  SEGMENTS_TICK_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
});
