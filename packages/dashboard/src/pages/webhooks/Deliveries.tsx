import { WEBHOOK_DELIVERY_STATUSES, type WebhookDelivery, WebhookDeliveryStatus } from "@mailroom/contracts";
import { Anchor, Button, Group, SegmentedControl, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { useDeliveries, useRetryDeliveryMutation } from "../../api/webhooks";
import { DataTable } from "../../components/DataTable";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { DeliveryDrawer } from "./DeliveryDrawer";
import { DeliveryStatusBadge } from "./EndpointStatus";

const FILTERS = [{ value: "", label: "All" }, ...WEBHOOK_DELIVERY_STATUSES.map((s) => ({ value: s, label: s[0] + s.slice(1).toLowerCase() }))];

/**
 * An endpoint's deliveries log, newest first (kept 30 days): filtered by status (kept in the
 * address, `?status=`), a page more at a time, each delivery's detail in a drawer and a retry.
 */
export function Deliveries({ hookId }: { hookId: string }) {
  const [params, setParams] = useSearchParams();
  const parsed = WebhookDeliveryStatus.safeParse(params.get("status"));
  const status = parsed.success ? parsed.data : undefined;
  const deliveries = useDeliveries(hookId, status);
  const retry = useRetryDeliveryMutation();
  const [openId, setOpenId] = useState<string | null>(null);
  const rows = deliveries.data?.pages.flatMap((p) => p.data) ?? [];
  const retryOne = (d: WebhookDelivery) => retry.mutate({ params: { id: hookId, deliveryId: d.id } }, { onError: notifyError });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Deliveries</Title>
        <SegmentedControl aria-label="Delivery status" data={FILTERS} value={status ?? ""} onChange={(s) => setParams(s ? { status: s } : {}, { replace: true })} />
      </Group>
      <QueryStatus query={deliveries} what="deliveries">
        {() => (
          <>
            <DataTable
              label="Deliveries"
              rows={rows}
              rowKey={(d) => d.id}
              empty={status ? `No ${status.toLowerCase()} deliveries in the last 30 days.` : "No deliveries in the last 30 days. Send a test event to see one."}
              minWidth={720}
              columns={[
                {
                  header: "Event",
                  cell: (d) => (
                    <Anchor component="button" type="button" onClick={() => setOpenId(d.id)}>
                      {d.eventType}
                    </Anchor>
                  ),
                },
                { header: "Status", cell: (d) => <DeliveryStatusBadge status={d.status} /> },
                { header: "Attempts", cell: (d) => d.attempts },
                { header: "Response", cell: (d) => d.responseCode ?? "—" },
                { header: "Time", cell: (d) => formatTime(d.createdAt) },
                { header: "Next attempt", cell: (d) => formatTime(d.nextAttemptAt) },
                {
                  header: "Actions",
                  hideHeader: true,
                  cell: (d) => (
                    <Button size="xs" variant="default" aria-label={`Retry ${d.eventType}`} onClick={() => retryOne(d)}>
                      Retry
                    </Button>
                  ),
                },
              ]}
            />
            {deliveries.hasNextPage && (
              <Group justify="center">
                <Button variant="default" loading={deliveries.isFetchingNextPage} onClick={() => deliveries.fetchNextPage()}>
                  Load more
                </Button>
              </Group>
            )}
            {rows.length > 0 && !deliveries.hasNextPage && (
              <Text size="sm" c="dimmed" ta="center">
                That is every delivery of the last 30 days.
              </Text>
            )}
          </>
        )}
      </QueryStatus>
      <DeliveryDrawer delivery={rows.find((d) => d.id === openId) ?? null} onClose={() => setOpenId(null)} onRetry={retryOne} retrying={retry.isPending} />
    </Stack>
  );
}
