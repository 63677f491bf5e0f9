import { type Campaign, CreateCampaignRequest, type FilterExpression } from "@mailroom/contracts";
import { abFieldOf, abRequest, type AbValues, initialAb } from "./ab-form";
import type { Audience } from "./audience";
import { localZone } from "../../lib/zones";

/** The composer's fields: the request's, with the sender split into its part before the @ and its verified domain. */
export interface ComposerValues extends Audience {
  name: string;
  senderLocal: string;
  senderDomain: string;
  fromName: string;
  replyTo: string;
  subject: string;
  body: string;
  ab: AbValues;
  /** "Deliver at recipient's local time": the time and the zone of contacts without one. */
  deliverLocal: boolean;
  localTime: string;
  fallbackTimezone: string;
}

export const DEFAULT_BODY = `<p>Hi {{ firstName | default: "there" }},</p>\n<p>…</p>\n<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>\n`;

export function initialValues(c: Campaign | null, firstDomain: string): ComposerValues {
  const [local = "", domain = ""] = c ? splitAddress(c.from) : ["news", firstDomain];
  return {
    name: c?.name ?? "",
    senderLocal: local,
    senderDomain: domain,
    fromName: c?.fromName ?? "",
    replyTo: c?.replyTo ?? "",
    subject: c?.subject ?? "",
    body: c?.body ?? DEFAULT_BODY,
    audienceType: c?.type ?? "ALL",
    segmentId: c?.segmentId ?? null,
    audienceFilter: (c?.audienceFilter as FilterExpression | null) ?? null,
    topicId: c?.topicId ?? null,
    ab: initialAb(c),
    deliverLocal: !!c?.deliverAt,
    localTime: c?.deliverAt?.localTime ?? "09:00",
    fallbackTimezone: c?.deliverAt?.fallbackTimezone ?? localZone(),
  };
}

function splitAddress(address: string): [string, string] {
  const at = address.lastIndexOf("@");
  return [address.slice(0, at), address.slice(at + 1)];
}

/** The create/update body; empty optional fields are null, only the audience's own field is sent. */
export function toRequest(v: ComposerValues): CreateCampaignRequest {
  return {
    name: v.name.trim(),
    subject: v.subject,
    body: v.body,
    from: `${v.senderLocal.trim()}@${v.senderDomain}`,
    fromName: v.fromName.trim() || null,
    replyTo: v.replyTo.trim() || null,
    audienceType: v.audienceType,
    segmentId: v.audienceType === "SEGMENT" ? v.segmentId : null,
    audienceFilter: v.audienceType === "FILTERED" ? v.audienceFilter : null,
    // null, not omitted: choosing "No topic" on a saved topic campaign must clear it.
    topicId: v.topicId,
    ...abRequest(v.ab),
    deliverAt: v.deliverLocal ? { localTime: v.localTime, fallbackTimezone: v.fallbackTimezone } : null,
  };
}

/** Where an error about a request path shows in the form (the sender's two fields show `from`'s). */
export function fieldOf(path: string): string {
  const ab = abFieldOf(path);
  if (ab) return ab;
  if (path === "deliverAt.localTime") return "localTime";
  if (path === "deliverAt.fallbackTimezone") return "fallbackTimezone";
  const head = path.split(".")[0] ?? "";
  if (head === "deliverAt") return "deliverLocal";
  return head === "from" ? "senderLocal" : head;
}

/** The same schema the API checks, its messages at the form's fields. */
export function validateComposer(v: ComposerValues): Record<string, string> {
  const parsed = CreateCampaignRequest.safeParse(toRequest(v));
  const errors: Record<string, string> = {};
  if (!v.senderDomain) errors.senderDomain = "Pick a verified domain";
  if (parsed.success) return errors;
  for (const issue of parsed.error.issues) {
    const field = fieldOf(issue.path.join("."));
    errors[field] ??= issue.message;
  }
  return errors;
}
