import { z } from "zod";

/**
 * Local-time delivery and quiet hours (decisions.md §18): wall-clock times in a recipient's own
 * time zone. The arithmetic lives in @mailroom/kit (local-time.ts); these are only the shapes.
 */

/** Whether Intl knows the zone: the same check the SCHEDULE trigger's `timezone` has always had. */
export const isTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const TimeZone = z
  .string()
  .max(100)
  .refine(isTimeZone, { message: "must be an IANA time zone" })
  .meta({ description: "An IANA time zone, e.g. Europe/Paris", example: "America/New_York" });

/** 24-hour "HH:MM", 00:00 to 23:59; "9:00" and "9am" are refused so that there is one spelling. */
export const LocalTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: "must be a 24-hour time HH:MM (00:00 to 23:59)" })
  .meta({ description: "A wall-clock time, 24-hour HH:MM", example: "09:00" });

export const DeliverAt = z
  .strictObject({
    localTime: LocalTime,
    fallbackTimezone: TimeZone.meta({ description: "The zone of recipients whose data.timezone is missing or not an IANA zone" }),
  })
  .meta({
    description:
      "Local-time delivery: each recipient is mailed at the next `localTime` (within 24 h of the send) in the " +
      "time zone of its contact data key `timezone`, or in `fallbackTimezone`. The campaign stays SENDING until the last one.",
  });
export type DeliverAt = z.infer<typeof DeliverAt>;

export const QuietHours = z
  .strictObject({
    from: LocalTime.meta({ description: "Start of the quiet window (inclusive)" }),
    to: LocalTime.meta({ description: "End of the quiet window (exclusive); earlier than `from` wraps past midnight" }),
  })
  .refine((q) => q.from !== q.to, { message: "from and to must differ", path: ["to"] })
  .meta({
    description:
      "No email in this window of the contact's local time (contact data key `timezone`; when it is missing or not " +
      "an IANA zone, the SCHEDULE trigger's `timezone`, else UTC): a send that falls inside is held on a durable " +
      "timer until the window ends (the step then runs again), one outside goes at once.",
  });
export type QuietHours = z.infer<typeof QuietHours>;
