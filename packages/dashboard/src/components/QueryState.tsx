import { Alert, Button, Center, Group, Loader, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { adviceFor } from "../lib/errors";

/** A read that is still on its way; named "Loading …" like the shell's, which tests wait on. */
export function Loading({ what }: { what?: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={what ? `Loading ${what}` : "Loading"} />
    </Center>
  );
}

/** A read that failed: what went wrong and a way to try again. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const advice = adviceFor(error);
  return (
    <Alert color="red" title={advice.title} role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{advice.message}</Text>
        {onRetry && (
          <Button size="xs" variant="default" onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/** Nothing to show yet, and what would make something appear. */
export function Empty({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <Stack align="center" py="xl" gap="sm">
      <Text c="dimmed">{children}</Text>
      {action && <Group>{action}</Group>}
    </Stack>
  );
}
