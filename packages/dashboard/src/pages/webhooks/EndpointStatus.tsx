import type { WebhookDeliveryStatus, WebhookEndpoint } from "@mailroom/contracts";
import { Badge, Stack, Text } from "@mantine/core";

/** Enabled, or disabled and why when Mailroom did it (a 410, five days of failures). */
export function EndpointStatus({ hook }: { hook: WebhookEndpoint }) {
  if (hook.enabled)
    return (
      <Badge color="teal.9" miw="max-content">
        Enabled
      </Badge>
    );
  return (
    <Stack gap={2} align="flex-start">
      <Badge color="gray.7" miw="max-content">
        Disabled
      </Badge>
      {hook.disabledReason && <Text size="xs">{hook.disabledReason}</Text>}
    </Stack>
  );
}

const DELIVERY_COLORS: Record<WebhookDeliveryStatus, string> = { PENDING: "blue.9", SUCCEEDED: "teal.9", FAILED: "red.9" };

/** Never shortened to "PEN…" when a narrow table squeezes its column: the status is the row's point. */
export function DeliveryStatusBadge({ status }: { status: WebhookDeliveryStatus }) {
  return (
    <Badge color={DELIVERY_COLORS[status]} miw="max-content">
      {status}
    </Badge>
  );
}
