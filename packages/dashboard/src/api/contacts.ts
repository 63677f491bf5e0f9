import { contactRoutes, routeOf } from "@mailroom/contracts";
import { type QueryClient, keepPreviousData } from "@tanstack/react-query";
import { prefetchRoute, useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(contactRoutes, "contacts.list");
const read = routeOf(contactRoutes, "contacts.read");
const create = routeOf(contactRoutes, "contacts.create");
const update = routeOf(contactRoutes, "contacts.update");
const remove = routeOf(contactRoutes, "contacts.delete");
const events = routeOf(contactRoutes, "contacts.events");

export const CONTACTS_PAGE_SIZE = 25;
/** The first page main.tsx asked for as the app opened is still fresh when the table mounts: no second fetch. */
const LIST_FRESH_MS = 5_000;

/** One page only, whatever the project's size: the table never holds more than `limit` contacts. */
/** The list's first page, unfiltered: what /app/contacts shows first. */
export function prefetchContacts(client: QueryClient): void {
  prefetchRoute(client, list, { query: { limit: CONTACTS_PAGE_SIZE } });
}

export function useContacts(query: { search?: string; cursor?: string }) {
  return useRouteQuery(list, { query: { ...query, limit: CONTACTS_PAGE_SIZE } }, { placeholderData: keepPreviousData, staleTime: LIST_FRESH_MS });
}

export function useContact(id: string) {
  return useRouteQuery(read, { params: { id } });
}

export function useContactEvents(id: string) {
  return useRouteQuery(events, { params: { id }, query: { limit: 20 } });
}

export function useCreateContactMutation() {
  return useRouteMutation(create, [list]);
}

export function useUpdateContactMutation() {
  return useRouteMutation(update, [list, read]);
}

export function useDeleteContactMutation() {
  return useRouteMutation(remove, [list]);
}

const dataKeys = routeOf(contactRoutes, "contacts.dataKeys");
const eventNames = routeOf(contactRoutes, "contacts.eventNames");

/** The `data` keys seen in the project (as filter fields name them), for suggestions while building a filter. */
export function useDataKeys() {
  return useRouteQuery(dataKeys, {}, { staleTime: 60_000 });
}

/** The event names seen in the project, for suggestions. */
export function useEventNames() {
  return useRouteQuery(eventNames, {}, { staleTime: 60_000 });
}
