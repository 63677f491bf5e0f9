import { emailRoutes, type ListEmailsQuery, routeOf } from "@mailroom/contracts";
import { keepPreviousData } from "@tanstack/react-query";
import { useRouteQuery } from "./query";

const list = routeOf(emailRoutes, "sending.emails.list");
const get = routeOf(emailRoutes, "sending.emails.get");
const events = routeOf(emailRoutes, "sending.emails.events");

export const EMAILS_PAGE_SIZE = 25;

export type EmailFilters = Pick<ListEmailsQuery, "status" | "to" | "campaignId" | "contactId">;

/** `pollMs`: read again that often (a sending campaign's recipients), or never. */
export function useEmails(filters: EmailFilters & { cursor?: string }, limit = EMAILS_PAGE_SIZE, pollMs: number | false = false) {
  return useRouteQuery(list, { query: { ...filters, limit } }, { placeholderData: keepPreviousData, refetchInterval: pollMs });
}

export function useEmail(id: string) {
  return useRouteQuery(get, { params: { id } });
}

export function useEmailEvents(id: string) {
  return useRouteQuery(events, { params: { id } });
}
