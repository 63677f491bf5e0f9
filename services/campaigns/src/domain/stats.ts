import { FREQUENCY_CAP_REASON } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";

/** The counters of `stats` fed by email events, plus `ended` (the recipient's job is over). */
export const STAT_KINDS = ["sent", "delivered", "opened", "clicked", "bounced", "complained", "unsubscribed", "failed", "skipped", "ended"] as const;
export type StatKind = (typeof STAT_KINDS)[number];

/** What one event adds to one campaign's stats, before de-duplication by email. */
export interface StatHit {
  projectId: string;
  campaignId: string;
  emailId: string;
  /** The recipient (the event envelope's), by which an A/B test's sample is counted per variant. */
  contactId: string | null;
  kinds: StatKind[];
  /**
   * The event batch that carried it (its message id), or null for an event in a message of its own.
   * A batch's events each happen once per email (the record's QUEUED → SENT move emits them), so
   * a batch is counted once as a whole; a lone event is counted once per email and stat.
   */
  batchId: string | null;
}

interface EventLike {
  projectId: string;
  contactId?: string | null;
  name: string;
  data: Record<string, unknown>;
}

/**
 * Maps an event of the EVENTS stream to the campaign stats it moves; null when it moves none (not a
 * campaign email, a test copy, which carries no campaignId, or an event of another kind).
 *
 * A recipient's job ends with `email.sent` or, when it can never be sent, `email.failed`: the sending
 * service emits exactly one of them per email (only a QUEUED record moves to SENT or FAILED). A
 * permanent bounce ends nothing: the sending service takes a bounce only for a record no longer
 * QUEUED, so its email has ended already.
 */
export function statHit(event: EventLike, batchId: string | null = null): StatHit | null {
  const emailId = event.data.emailId;
  const campaignId = event.data.campaignId;
  if (!isId(emailId) || !isId(campaignId) || !isId(event.projectId)) return null;
  const kinds = kindsOf(event);
  const contactId = typeof event.contactId === "string" ? event.contactId : null;
  return kinds.length ? { projectId: event.projectId, campaignId, emailId, contactId, kinds, batchId } : null;
}

function kindsOf(event: EventLike): StatKind[] {
  switch (event.name) {
    case "email.sent":
      return ["sent", "ended"];
    case "email.failed":
      // the frequency cap's skips are recipients left out on purpose, not failures
      return event.data.reason === FREQUENCY_CAP_REASON ? ["skipped", "ended"] : ["failed", "ended"];
    case "email.delivery":
      return ["delivered"];
    case "email.open":
      return ["opened"];
    case "email.click":
      return ["clicked"];
    case "email.bounce":
      return event.data.bounceType === "Permanent" ? ["bounced"] : [];
    case "email.complaint":
      return ["complained"];
    // Only an unsubscribe through a campaign email's link names the email and its campaign.
    case "contact.unsubscribed":
      return ["unsubscribed"];
    default:
      return [];
  }
}

/** The event names that can move campaign stats: a message naming none of them is skipped unread. */
export const STAT_EVENT_NAMES: ReadonlySet<string> = new Set([
  "email.sent",
  "email.failed",
  "email.delivery",
  "email.open",
  "email.click",
  "email.bounce",
  "email.complaint",
  "contact.unsubscribed",
]);

export type StatDeltas = Record<StatKind, number>;

export const zeroDeltas = (): StatDeltas => Object.fromEntries(STAT_KINDS.map((k) => [k, 0])) as StatDeltas;
