import type { ContactEvent } from "@mailroom/contracts";
import { Code, Stack, Title } from "@mantine/core";
import { useContactEvents } from "../../api/contacts";
import { type Column, QueryTable } from "../../components/DataTable";
import { formatTime } from "../../lib/format";

const EVENT_COLUMNS: Column<ContactEvent>[] = [
  { header: "Event", cell: (e) => e.name },
  { header: "Data", cell: (e) => Object.keys(e.data).length > 0 && <Code>{JSON.stringify(e.data)}</Code> },
  { header: "When", cell: (e) => formatTime(e.createdAt) },
];

/** The contact's latest tracked events (`/v1/track`), newest first. */
export function ContactEvents({ id }: { id: string }) {
  const events = useContactEvents(id);
  return (
    <Stack gap="xs">
      <Title order={3}>Events</Title>
      <QueryTable
        label="Events"
        query={events}
        empty="No event was tracked for this contact yet."
        minWidth={480}
        columns={EVENT_COLUMNS}
      />
    </Stack>
  );
}
