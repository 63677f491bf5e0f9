import { Anchor, Badge, Stack, Table, Title } from "@mantine/core";
import { Link } from "react-router";
import { useSegmentMembers } from "../../api/segments";
import { Pager } from "../../components/Pager";
import { QueryStatus } from "../../components/QueryStatus";
import { Empty } from "../../components/QueryState";
import { useCursorTrail } from "../../lib/cursors";
import { formatTime } from "../../lib/format";

/** The saved segment's members, a cursor page at a time; `version` (the segment's updatedAt) restarts at page 1 after a save. */
export function SegmentMembers({ id, count, version }: { id: string; count: number; version: string }) {
  const trail = useCursorTrail(version);
  const members = useSegmentMembers(id, trail.cursor);
  return (
    <Stack gap="xs">
      <Title order={3}>
        Members ({count})
      </Title>
      <QueryStatus query={members} what="the members">
        {() => {
          const page = members.data!;
          if (page.data.length === 0) return <Empty>No contact matches this segment now.</Empty>;
          return (
            <>
              <Table.ScrollContainer minWidth={520}>
                <Table striped aria-label="Members">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Email</Table.Th>
                      <Table.Th>Subscription</Table.Th>
                      <Table.Th>Created</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {page.data.map((c) => (
                      <Table.Tr key={c.id}>
                        <Table.Td>
                          <Anchor component={Link} to={`/contacts/${encodeURIComponent(c.id)}`}>
                            {c.email}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>
                          <Badge variant="outline" color={c.subscribed ? "blue" : "gray"}>
                            {c.subscribed ? "Subscribed" : "Unsubscribed"}
                          </Badge>
                        </Table.Td>
                        <Table.Td>{formatTime(c.createdAt)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <Pager
                label="Members"
                page={trail.page}
                hasPrevious={trail.hasPrevious}
                hasMore={page.hasMore && page.cursor !== null}
                onPrevious={trail.previous}
                onNext={() => page.cursor && trail.next(page.cursor)}
              />
            </>
          );
        }}
      </QueryStatus>
    </Stack>
  );
}
