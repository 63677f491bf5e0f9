import { EMAIL_STATUSES, EmailStatus, Id } from "@mailroom/contracts";
import type { EmailFilters } from "../../api/emails";

export const STATUS_OPTIONS = EMAIL_STATUSES.map((s) => ({ value: s, label: s.charAt(0) + s.slice(1).toLowerCase() }));

/**
 * The log's filters from the address bar, so a filtered view can be shared. A value the API would
 * refuse (an unknown status, an overlong id, someone's edited link) is dropped rather than
 * turned into an error page.
 */
export function filtersFrom(params: URLSearchParams): Omit<EmailFilters, "contactId"> {
  const status = EmailStatus.safeParse(params.get("status") ?? undefined);
  const campaignId = Id.safeParse(params.get("campaignId")?.trim() || undefined);
  const to = params.get("to")?.trim().slice(0, 254);
  return { status: status.success ? status.data : undefined, campaignId: campaignId.success ? campaignId.data : undefined, to: to || undefined };
}

/** The filters back into the address bar, leaving out the empty ones. */
export function filtersTo(filters: Omit<EmailFilters, "contactId">): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v);
  return params;
}
