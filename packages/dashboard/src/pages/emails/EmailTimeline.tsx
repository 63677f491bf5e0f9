import type { EmailEvent } from "@mailroom/contracts";
import { Stack, Text, Timeline, Title } from "@mantine/core";
import { useEmailEvents } from "../../api/emails";
import { Empty, LoadError, Loading } from "../../components/QueryState";
import { formatTime, formatValue } from "../../lib/format";

const TITLES: Record<EmailEvent["type"], string> = {
  QUEUED: "Queued",
  SENT: "Sent",
  DELIVERED: "Delivered",
  OPENED: "Opened",
  CLICKED: "Clicked",
  BOUNCED: "Bounced",
  COMPLAINED: "Marked as spam",
  FAILED: "Failed",
  UNSUBSCRIBED: "Unsubscribed",
};

/** The event's details as "key: value" lines: the clicked URL, the bounce's diagnostic, the failure's reason. */
function Details({ details }: { details: EmailEvent["details"] }) {
  const entries = Object.entries(details).filter(([, v]) => v !== null && v !== undefined && v !== "");
  if (entries.length === 0) return null;
  return (
    <Stack gap={0}>
      {entries.map(([k, v]) => (
        <Text key={k} size="sm" style={{ overflowWrap: "anywhere" }}>
          {k}: {formatValue(v)}
        </Text>
      ))}
    </Stack>
  );
}

/** What happened to the email, in the order it happened (GET /emails/:id/events). */
export function EmailTimeline({ id }: { id: string }) {
  const events = useEmailEvents(id);
  return (
    <Stack gap="xs">
      <Title order={3}>Timeline</Title>
      {events.isPending ? (
        <Loading />
      ) : events.isError ? (
        <LoadError error={events.error} onRetry={() => events.refetch()} />
      ) : events.data.data.length === 0 ? (
        <Empty>No event recorded yet.</Empty>
      ) : (
        <Timeline active={events.data.data.length - 1} bulletSize={16} lineWidth={2}>
          {events.data.data.map((ev) => (
            <Timeline.Item key={ev.id} title={TITLES[ev.type]}>
              <Text size="sm" c="dimmed">
                {ev.type} · {formatTime(ev.occurredAt)}
              </Text>
              <Details details={ev.details} />
            </Timeline.Item>
          ))}
        </Timeline>
      )}
    </Stack>
  );
}
