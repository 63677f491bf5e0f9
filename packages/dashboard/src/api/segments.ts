import { type FilterExpression, routeOf, segmentRoutes } from "@mailroom/contracts";
import { keepPreviousData } from "@tanstack/react-query";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(segmentRoutes, "contacts.segments.list");
const get = routeOf(segmentRoutes, "contacts.segments.get");
const create = routeOf(segmentRoutes, "contacts.segments.create");
const update = routeOf(segmentRoutes, "contacts.segments.update");
const remove = routeOf(segmentRoutes, "contacts.segments.delete");
const members = routeOf(segmentRoutes, "contacts.segments.contacts");
const count = routeOf(segmentRoutes, "contacts.segments.count");

export const SEGMENT_MEMBERS_PAGE_SIZE = 25;

export function useSegments() {
  return useRouteQuery(list, {});
}

export function useSegment(id: string) {
  return useRouteQuery(get, { params: { id } });
}

export function useSegmentMembers(id: string, cursor: string | undefined) {
  return useRouteQuery(members, { params: { id }, query: { limit: SEGMENT_MEMBERS_PAGE_SIZE, cursor } }, { placeholderData: keepPreviousData });
}

/**
 * How many contacts `filters` matches now (nothing saved). Null asks nothing: the caller passes only
 * an expression the schema accepted. The previous count stays on screen while the next one loads.
 */
export function useFilterCount(filters: FilterExpression | null) {
  return useRouteQuery(count, { body: { filters: filters ?? { logic: "AND", groups: [] } } }, { enabled: filters !== null, placeholderData: keepPreviousData });
}

export function useCreateSegmentMutation() {
  return useRouteMutation(create, [list]);
}

// A saved filter changes the members and their count, so the member pages refetch too.
export function useUpdateSegmentMutation() {
  return useRouteMutation(update, [list, get, members]);
}

export function useDeleteSegmentMutation() {
  return useRouteMutation(remove, [list]);
}
