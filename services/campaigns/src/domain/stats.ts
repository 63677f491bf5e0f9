import { isId } from "@mailroom/kit";

/** The counters of `stats` fed by email events, plus `ended` (the recipient's job is over). */
export const STAT_KINDS = ["sent", "delivered", "opened", "clicked", "bounced", "complained", "unsubscribed", "failed", "ended"] as const;
export type StatKind = (typeof STAT_KINDS)[number];

/** What one event adds to one campaign's stats, before de-duplication by email. */
export interface StatHit {
  projectId: string;
  campaignId: string;
  emailId: string;
  /** The recipient (the event envelope's), by which an A/B test's sample is counted per variant. */
  contactId: string | null;
  kinds: StatKind[];
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
 * A recipient's job ends with `email.sent` or, when it can never be sent, `email.failed`. A
 * permanent bounce also ends it: a relay that refuses an address at once may report that instead
 * of a send. `ended` is counted once per email whichever of them comes first.
 */
export function statHit(event: EventLike): StatHit | null {
  const emailId = event.data.emailId;
  const campaignId = event.data.campaignId;
  if (!isId(emailId) || !isId(campaignId) || !isId(event.projectId)) return null;
  const kinds = kindsOf(event);
  const contactId = typeof event.contactId === "string" ? event.contactId : null;
  return kinds.length ? { projectId: event.projectId, campaignId, emailId, contactId, kinds } : null;
}

function kindsOf(event: EventLike): StatKind[] {
  switch (event.name) {
    case "email.sent":
      return ["sent", "ended"];
    case "email.failed":
      return ["failed", "ended"];
    case "email.delivery":
      return ["delivered"];
    case "email.open":
      return ["opened"];
    case "email.click":
      return ["clicked"];
    case "email.bounce":
      return event.data.bounceType === "Permanent" ? ["bounced", "ended"] : [];
    case "email.complaint":
      return ["complained"];
    // Only an unsubscribe through a campaign email's link names the email and its campaign.
    case "contact.unsubscribed":
      return ["unsubscribed"];
    default:
      return [];
  }
}

export type StatDeltas = Record<StatKind, number>;

export const zeroDeltas = (): StatDeltas => Object.fromEntries(STAT_KINDS.map((k) => [k, 0])) as StatDeltas;
