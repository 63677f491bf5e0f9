import type { ReactNode } from "react";
import { LoadError, Loading } from "./QueryState";

export interface QueryLike {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * A read's loading and error states, the same on every page (QueryState's pieces); the page's own
 * content (and its empty state) once there is data.
 */
export function QueryStatus({ query, what, children }: { query: QueryLike; what: string; children: () => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <LoadError error={query.error} onRetry={() => query.refetch()} />;
  return children();
}
