import { Alert, Button, Group, Loader, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { adviceFor } from "../lib/errors";

interface QueryLike {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * A read's loading and error states, the same on every page: a labelled loader, then the error's
 * advice with a way to try again; the page's own content (and its empty state) once there is data.
 */
export function QueryStatus({ query, what, children }: { query: QueryLike; what: string; children: () => ReactNode }) {
  if (query.isPending) return <Loader aria-label={`Loading ${what}`} />;
  if (query.isError) {
    const advice = adviceFor(query.error);
    return (
      <Alert color="red" title={advice.title} role="alert">
        <Group justify="space-between">
          <Text size="sm">{advice.message}</Text>
          <Button size="xs" variant="default" onClick={() => query.refetch()}>
            Try again
          </Button>
        </Group>
      </Alert>
    );
  }
  return children();
}
