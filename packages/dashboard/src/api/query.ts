import type { RouteDef } from "@mailroom/contracts";
import { type UseQueryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
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
    queryKey: [route.operation, project, input],
    queryFn: () => request(route, input),
    ...options,
  });
}

/** A mutation for one route; on success the queries of the routes in `invalidates` refetch. */
export function useRouteMutation<R extends RouteDef>(route: R, invalidates: readonly RouteDef[] = []) {
  const client = useQueryClient();
  return useMutation<RouteOutput<R>, ApiError, RouteInput<R>>({
    mutationFn: (input) => request(route, input),
    onSuccess: () => Promise.all(invalidates.map((r) => client.invalidateQueries({ queryKey: [r.operation] }))),
  });
}
