import { Alert, Button, Code, CopyButton, Group, Stack, Text } from "@mantine/core";
import { formatTime } from "../../lib/format";

/**
 * A signing secret, the only time it is shown (after a create or a rotation): the API never answers
 * it again, so the user copies it now or rotates later. After a rotation the old secret still signs
 * beside it until `previousUntil`, so a receiver can switch without missing an event.
 */
export function SecretReveal({ secret, previousUntil, onDone }: { secret: string; previousUntil: string | null; onDone: () => void }) {
  return (
    <Stack>
      <Alert color="dark" title="Copy it now">
        This signing secret will not be shown again. Your receiver verifies each request's webhook-signature header with it.
      </Alert>
      {previousUntil && (
        <Text size="sm">
          The old secret keeps signing beside this one for 24 hours (until {formatTime(previousUntil)}): update your receiver before then.
        </Text>
      )}
      <Code block aria-label="Signing secret" style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
        {secret}
      </Code>
      <Group justify="space-between">
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button variant="default" onClick={copy}>
              {copied ? "Copied" : "Copy secret"}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}
