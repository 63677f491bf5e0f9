import { AppError, type AudienceType, type CampaignStatus, type DeliverAt, type FilterExpression } from "@mailroom/contracts";
import { contactZone, nextLocalTime } from "@mailroom/kit";

/** The audience as stored: only the field its type uses is kept, the other is null. */
export interface Audience {
  type: AudienceType;
  segmentId: string | null;
  filter: FilterExpression | null;
  /** A topic campaign: of the audience, only contacts opted into the topic. Any audience type may have one. */
  topicId: string | null;
}

/**
 * Merges an edit into the stored audience. Switching the type drops the field the old type used, so
 * a campaign never carries a stale segment or filter that could be mistaken for its audience.
 */
export function mergeAudience(
  stored: Audience | null,
  edit: { audienceType?: AudienceType; segmentId?: string | null; audienceFilter?: FilterExpression | null; topicId?: string | null },
): Audience {
  const type = edit.audienceType ?? stored?.type ?? "ALL";
  const segmentId = edit.segmentId !== undefined ? edit.segmentId : (stored?.segmentId ?? null);
  const filter = edit.audienceFilter !== undefined ? edit.audienceFilter : (stored?.filter ?? null);
  const audience: Audience = {
    type,
    segmentId: type === "SEGMENT" ? segmentId : null,
    filter: type === "FILTERED" ? filter : null,
    topicId: edit.topicId !== undefined ? edit.topicId : (stored?.topicId ?? null),
  };
  if (audience.type === "SEGMENT" && !audience.segmentId) {
    throw AppError.validation("Request validation failed", [{ path: "segmentId", message: "required when audienceType is SEGMENT" }]);
  }
  if (audience.type === "FILTERED" && !audience.filter) {
    throw AppError.validation("Request validation failed", [{ path: "audienceFilter", message: "required when audienceType is FILTERED" }]);
  }
  return audience;
}

/** decisions.md §10: a campaign is edited or deleted only while it is a DRAFT. */
export function assertEditable(status: CampaignStatus): void {
  if (status !== "DRAFT") throw new AppError("INVALID_STATE", `A ${status} campaign cannot be changed; only DRAFT campaigns can`);
}

/** Sending starts from DRAFT, or again from SCHEDULED (to send now or move the time). */
export const SENDABLE: readonly CampaignStatus[] = ["DRAFT", "SCHEDULED"];

export function assertSendable(status: CampaignStatus): void {
  if (!SENDABLE.includes(status)) throw new AppError("INVALID_STATE", `A ${status} campaign cannot be sent again`);
}

/** `scheduledFor` must lie in the future; null or absent means now. Returns the time or null. */
export function scheduleTime(scheduledFor: string | null | undefined, now = new Date()): Date | null {
  if (scheduledFor === undefined || scheduledFor === null) return null;
  const at = new Date(scheduledFor);
  if (at.getTime() <= now.getTime()) {
    throw AppError.validation("Request validation failed", [{ path: "scheduledFor", message: "must be in the future" }]);
  }
  return at;
}

/**
 * Local-time delivery on the merged campaign (an edit may set one while the other is stored): not
 * with an A/B test, whose sample's wait would have to outlast every recipient's local time.
 */
export function mergeDeliverAt(stored: DeliverAt | null, edit: { deliverAt?: DeliverAt | null }, abTest: unknown): DeliverAt | null {
  const deliverAt = edit.deliverAt !== undefined ? edit.deliverAt : stored;
  if (deliverAt && abTest) {
    throw AppError.validation("Request validation failed", [{ path: "deliverAt", message: "cannot be combined with an A/B test" }]);
  }
  return deliverAt;
}

/**
 * When a recipient of a local-time campaign is due (null: at once): the next `localTime` in its
 * contact's zone, or the campaign's fallback zone.
 */
export function recipientDueAt(deliverAt: DeliverAt | null, data: Record<string, unknown>, now: Date): Date | null {
  if (!deliverAt) return null;
  return nextLocalTime(now, deliverAt.localTime, contactZone(data, deliverAt.fallbackTimezone));
}
