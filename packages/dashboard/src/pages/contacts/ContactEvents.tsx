import { Code, Stack, Table, Title } from "@mantine/core";
import { useContactEvents } from "../../api/contacts";
import { Empty, LoadError, Loading } from "../../components/QueryState";
import { formatTime } from "../../lib/format";

/** The contact's latest tracked events (`/v1/track`), newest first. */
export function ContactEvents({ id }: { id: string }) {
  const events = useContactEvents(id);
  return (
    <Stack gap="xs">
      <Title order={3}>Events</Title>
      {events.isPending ? (
        <Loading />
      ) : events.isError ? (
        <LoadError error={events.error} onRetry={() => events.refetch()} />
      ) : events.data.data.length === 0 ? (
        <Empty>No event was tracked for this contact yet.</Empty>
      ) : (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              <Table.Th>Data</Table.Th>
              <Table.Th>When</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.data.data.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{e.name}</Table.Td>
                <Table.Td>{Object.keys(e.data).length > 0 && <Code>{JSON.stringify(e.data)}</Code>}</Table.Td>
                <Table.Td>{formatTime(e.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
