import { type FilterExpression, routeOf, segmentRoutes } from "@mailroom/contracts";
import { keepPreviousData } from "@tanstack/react-query";
import { useRouteQuery } from "./query";

const segments = routeOf(segmentRoutes, "contacts.segments.list");
const count = routeOf(segmentRoutes, "contacts.segments.count");

/** The project's segments, for an audience picker. */
export function useSegmentOptions() {
  return useRouteQuery(segments, {});
}

/** How many contacts a filter matches now (null: nothing to count yet). */
export function useFilterCount(filters: FilterExpression | null) {
  return useRouteQuery(count, { body: { filters: filters ?? { logic: "AND", groups: [] } } }, { enabled: filters !== null, placeholderData: keepPreviousData });
}
