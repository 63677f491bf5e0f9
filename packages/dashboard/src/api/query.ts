import type { RouteDef } from "@mailroom/contracts";
import { type QueryClient, type UseQueryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { type RouteInput, type RouteOutput, request } from "./client";
import type { ApiError } from "./errors";
import { projectStore } from "./project";

/** The project the dashboard currently acts on (re-renders when it changes). */
export function useProjectId(): string | null {
  return useSyncExternalStore(projectStore.subscribe, projectStore.get);
}

/**
 * A query for one route of the contracts. The key starts with the route's operation, so a mutation
 * invalidates by route, and holds the project, so two projects' answers never mix in the cache.
 * Resource hooks wrap it (`src/api/members.ts` is the pattern to copy); pages call those.
 */
export function useRouteQuery<R extends RouteDef>(
  route: R,
  input: RouteInput<R>,
  options: Omit<UseQueryOptions<RouteOutput<R>, ApiError>, "queryKey" | "queryFn"> = {},
) {
  const project = useProjectId();
  return useQuery<RouteOutput<R>, ApiError>({
    queryKey: routeQueryKey(route, project, input),
    queryFn: () => request(route, input),
    ...options,
  });
}

/** The cache key of a route's query: the operation first (mutations invalidate by it), then the project. */
export function routeQueryKey<R extends RouteDef>(route: R, project: string | null, input: RouteInput<R>) {
  return [route.operation, project, input] as const;
}

/**
 * Starts a route's query before the page that reads it has loaded (main.tsx, on a direct visit), so
 * the answer and the page's code arrive together instead of one after the other.
 */
export function prefetchRoute<R extends RouteDef>(client: QueryClient, route: R, input: RouteInput<R>): void {
  const project = projectStore.get();
  if (project === null) return; // the first visit: the project is known only once /auth/me answers
  void client.prefetchQuery({ queryKey: routeQueryKey(route, project, input), queryFn: () => request(route, input) });
}

/** A mutation for one route; on success the queries of the routes in `invalidates` refetch. */
export function useRouteMutation<R extends RouteDef>(route: R, invalidates: readonly RouteDef[] = []) {
  const client = useQueryClient();
  return useMutation<RouteOutput<R>, ApiError, RouteInput<R>>({
    mutationFn: (input) => request(route, input),
    onSuccess: () => Promise.all(invalidates.map((r) => client.invalidateQueries({ queryKey: [r.operation] }))),
  });
}
