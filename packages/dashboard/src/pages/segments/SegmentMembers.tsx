import { Stack, Title } from "@mantine/core";
import { useSegmentMembers } from "../../api/segments";
import { CONTACT_COLUMNS } from "../../components/contact-columns";
import { QueryTable } from "../../components/DataTable";
import { useCursorTrail } from "../../lib/cursors";

/** The saved segment's members, a cursor page at a time; `version` (the segment's updatedAt) restarts at page 1 after a save. */
export function SegmentMembers({ id, count, version }: { id: string; count: number; version: string }) {
  const trail = useCursorTrail(version);
  const members = useSegmentMembers(id, trail.cursor);
  return (
    <Stack gap="xs">
      <Title order={3}>Members ({count})</Title>
      <QueryTable
        label="Members"
        query={members}
        trail={trail}
        empty="No contact matches this segment now."
        minWidth={520}
        columns={CONTACT_COLUMNS}
      />
    </Stack>
  );
}
