import type { WebhookDelivery } from "@mailroom/contracts";
import { Button, Code, Drawer, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { formatTime } from "../../lib/format";
import { DeliveryStatusBadge } from "./EndpointStatus";

/** Text as it came, wrapped inside the drawer: a payload or an answer can hold long unbroken strings. */
const BLOCK = { whiteSpace: "pre-wrap", wordBreak: "break-all" } as const;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="xs">
      <Title order={4}>{title}</Title>
      {children}
    </Stack>
  );
}

/** One delivery: its last attempt's answer (the first KB of the body) or error, and the payload sent. */
export function DeliveryDrawer({ delivery, onClose, onRetry, retrying }: {
  delivery: WebhookDelivery | null;
  onClose: () => void;
  onRetry: (d: WebhookDelivery) => void;
  retrying: boolean;
}) {
  return (
    <Drawer opened={delivery !== null} onClose={onClose} position="right" size="lg" closeButtonProps={{ "aria-label": "Close" }} title={delivery ? `Delivery of ${delivery.eventType}` : "Delivery"}>
      {delivery && (
        <Stack>
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            <Field label="Status">
              <DeliveryStatusBadge status={delivery.status} />
            </Field>
            <Field label="Attempts">{delivery.attempts}</Field>
            <Field label="Response code">{delivery.responseCode ?? "No answer"}</Field>
            <Field label="Last attempt">{formatTime(delivery.lastAttemptAt)}</Field>
            <Field label="Next attempt">{formatTime(delivery.nextAttemptAt)}</Field>
            <Field label="webhook-id">
              <Code style={BLOCK}>{delivery.eventId}</Code>
            </Field>
          </SimpleGrid>
          {delivery.error && (
            <Section title="Error">
              <Text size="sm" style={BLOCK}>
                {delivery.error}
              </Text>
            </Section>
          )}
          <Section title="Response body">
            {delivery.responseBody ? (
              <Code block aria-label="Response body" style={BLOCK}>
                {delivery.responseBody}
              </Code>
            ) : (
              <Text size="sm">None{delivery.attempts === 0 ? " yet" : ""}.</Text>
            )}
            <Text size="xs" c="dimmed">
              The first KB of the last answer.
            </Text>
          </Section>
          <Section title="Payload">
            <Code block aria-label="Payload" style={BLOCK}>
              {JSON.stringify(delivery.payload, null, 2)}
            </Code>
          </Section>
          <Group>
            <Button loading={retrying} onClick={() => onRetry(delivery)}>
              Retry now
            </Button>
          </Group>
        </Stack>
      )}
    </Drawer>
  );
}
