import type { RouteDef } from "@mailroom/contracts";
import { type InfiniteData, useInfiniteQuery } from "@tanstack/react-query";
import { type RouteInput, type RouteOutput, request } from "./client";
import type { ApiError } from "./errors";
import { routeQueryKey, useProjectId } from "./query";

// Apart from query.ts: TanStack's infinite query code then loads with the pages that page this way,
// not with the sign-in page and the contacts list (the size budget, scripts/check-size.mjs).

/** An answer of a cursor-paged list: a page of rows and, when there are more, the next page's cursor. */
interface CursorPage {
  hasMore: boolean;
  cursor: string | null;
}

/**
 * A cursor-paged route read as a growing list ("Load more"): each page's cursor comes from the one
 * before. Its key ends in "pages" so it never shares a cache entry with a plain query of the same
 * route (their data have different shapes); a mutation still invalidates it by the operation.
 */
export function useRouteInfiniteQuery<R extends RouteDef>(
  route: R,
  input: RouteInput<R>,
  options: { refetchInterval?: number | false | ((data: InfiniteData<RouteOutput<R>> | undefined) => number | false) } = {},
) {
  const project = useProjectId();
  const { refetchInterval } = options;
  return useInfiniteQuery<RouteOutput<R>, ApiError, InfiniteData<RouteOutput<R>>, readonly unknown[], string | undefined>({
    queryKey: [...routeQueryKey(route, project, input), "pages"],
    queryFn: ({ pageParam }) => {
      const { query } = input as { query?: Record<string, unknown> };
      return request(route, { ...input, query: { ...query, cursor: pageParam } } as RouteInput<R>);
    },
    initialPageParam: undefined,
    getNextPageParam: (last) => {
      const page = last as CursorPage;
      return page.hasMore && page.cursor ? page.cursor : undefined;
    },
    refetchInterval: typeof refetchInterval === "function" ? (q) => refetchInterval(q.state.data) : refetchInterval,
  });
}
