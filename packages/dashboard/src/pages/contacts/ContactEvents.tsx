import { Code, Stack, Title } from "@mantine/core";
import { useContactEvents } from "../../api/contacts";
import { QueryTable } from "../../components/DataTable";
import { formatTime } from "../../lib/format";

/** The contact's latest tracked events (`/v1/track`), newest first. */
export function ContactEvents({ id }: { id: string }) {
  const events = useContactEvents(id);
  return (
    <Stack gap="xs">
      <Title order={3}>Events</Title>
      <QueryTable
        label="Events"
        what="the events"
        query={events}
        rows={(d) => d.data}
        rowKey={(e) => e.id}
        empty="No event was tracked for this contact yet."
        minWidth={480}
        columns={[
          { header: "Event", cell: (e) => e.name },
          { header: "Data", cell: (e) => Object.keys(e.data).length > 0 && <Code>{JSON.stringify(e.data)}</Code> },
          { header: "When", cell: (e) => formatTime(e.createdAt) },
        ]}
      />
    </Stack>
  );
}
