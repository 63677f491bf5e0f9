import { Anchor, Badge, Button, Group, Stack, Table, Title } from "@mantine/core";
import { Link } from "react-router";
import { useSegments } from "../../api/segments";
import { useCan } from "../../components/Can";
import { QueryStatus } from "../../components/QueryStatus";
import { Empty } from "../../components/QueryState";
import { formatTime } from "../../lib/format";

/** Every segment of the project (the API answers them all at once: a project has tens, not millions). */
export function SegmentList() {
  const segments = useSegments();
  const canEdit = useCan("editor");
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Segments</Title>
        {canEdit && (
          <Button component={Link} to="new">
            New segment
          </Button>
        )}
      </Group>
      <QueryStatus query={segments} what="segments">
        {() =>
          segments.data!.length === 0 ? (
            <Empty>No segments yet. A segment is a saved filter over your contacts: build one to send a campaign to it.</Empty>
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table striped highlightOnHover aria-label="Segments">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Slug</Table.Th>
                    <Table.Th>Members</Table.Th>
                    <Table.Th>Tracking</Table.Th>
                    <Table.Th>Updated</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {segments.data!.map((s) => (
                    <Table.Tr key={s.id}>
                      <Table.Td>
                        <Anchor component={Link} to={encodeURIComponent(s.id)}>
                          {s.name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{s.slug}</Table.Td>
                      <Table.Td>{s.memberCount}</Table.Td>
                      <Table.Td>
                        <Badge variant="outline" color={s.trackMembership ? "blue" : "gray"}>
                          {s.trackMembership ? "Tracked" : "Not tracked"}
                        </Badge>
                      </Table.Td>
                      <Table.Td>{formatTime(s.updatedAt)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryStatus>
    </Stack>
  );
}
