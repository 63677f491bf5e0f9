import { Stack } from "@mantine/core";
import { useSegments } from "../../api/segments";
import { nameColumn, QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { formatTime } from "../../lib/format";
import { FlagBadge } from "../../components/FlagBadge";

/** Every segment of the project (the API answers them all at once: a project has tens, not millions). */
export function SegmentList() {
  const segments = useSegments();
  return (
    <Stack>
      <PageHeader title="Segments" actions={<NewButton to="new">New segment</NewButton>} />
      <QueryTable
        label="Segments"
        query={segments}
        empty="No segments yet. A segment is a saved filter over your contacts: build one to send a campaign to it."
        minWidth={640}
        columns={[
          nameColumn(),
          { header: "Slug", cell: (s) => s.slug },
          { header: "Members", cell: (s) => s.memberCount },
          {
            header: "Tracking",
            cell: (s) => (
              <FlagBadge on={s.trackMembership} yes="Tracked" no="Not tracked" />
            ),
          },
          { header: "Updated", cell: (s) => formatTime(s.updatedAt) },
        ]}
      />
    </Stack>
  );
}
