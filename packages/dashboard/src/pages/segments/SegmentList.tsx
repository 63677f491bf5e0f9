import { Anchor, Badge, Stack } from "@mantine/core";
import { Link } from "react-router";
import { useSegments } from "../../api/segments";
import { QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { formatTime } from "../../lib/format";

/** Every segment of the project (the API answers them all at once: a project has tens, not millions). */
export function SegmentList() {
  const segments = useSegments();
  return (
    <Stack>
      <PageHeader title="Segments" actions={<NewButton to="new">New segment</NewButton>} />
      <QueryTable
        label="Segments"
        what="segments"
        query={segments}
        rows={(d) => d}
        rowKey={(s) => s.id}
        empty="No segments yet. A segment is a saved filter over your contacts: build one to send a campaign to it."
        minWidth={640}
        columns={[
          {
            header: "Name",
            cell: (s) => (
              <Anchor component={Link} to={encodeURIComponent(s.id)}>
                {s.name}
              </Anchor>
            ),
          },
          { header: "Slug", cell: (s) => s.slug },
          { header: "Members", cell: (s) => s.memberCount },
          {
            header: "Tracking",
            cell: (s) => (
              <Badge variant="outline" color={s.trackMembership ? "blue" : "gray"}>
                {s.trackMembership ? "Tracked" : "Not tracked"}
              </Badge>
            ),
          },
          { header: "Updated", cell: (s) => formatTime(s.updatedAt) },
        ]}
      />
    </Stack>
  );
}
