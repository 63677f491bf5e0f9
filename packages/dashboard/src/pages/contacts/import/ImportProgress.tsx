import { Anchor, Badge, Box, Group, Progress, Stack, Text, Title } from "@mantine/core";
import type { ContactImport, ImportStatus } from "@mailroom/contracts";
import { Link, useParams } from "react-router";
import { useImport } from "../../../api/imports";
import { DataTable } from "../../../components/DataTable";
import { PageHeader } from "../../../components/PageHeader";
import { QueryStatus } from "../../../components/QueryStatus";
import { Empty } from "../../../components/QueryState";

// Filled shades dark enough for white text at badge size (WCAG AA), as the campaigns' StatusBadge.
const STATUS: Record<ImportStatus, { label: string; color: string }> = {
  RUNNING: { label: "Running", color: "blue.8" },
  COMPLETED: { label: "Completed", color: "teal.9" },
  FAILED: { label: "Failed", color: "red.9" },
};

/** `/contacts/imports/<id>`: an import's progress, polled while it runs, then its outcome and errors. */
export default function ImportProgress() {
  const { id = "" } = useParams();
  const imp = useImport(id);
  return (
    <Stack>
      <PageHeader title="Contact import" back={{ to: "/contacts", label: "Contacts" }} />
      <QueryStatus query={imp} what="the import">
        {() => <Outcome imp={imp.data!} />}
      </QueryStatus>
    </Stack>
  );
}

function Outcome({ imp }: { imp: ContactImport }) {
  const running = imp.status === "RUNNING";
  const applied = imp.created + imp.updated + imp.failed;
  // The file's length is unknown until it is read: the bar shows the rows applied of those read so
  // far (a row superseded by a later one with the same address is in neither count but `rows`).
  const percent = running ? (imp.rows ? Math.min(100, (applied / imp.rows) * 100) : 0) : 100;
  const status = STATUS[imp.status];
  return (
    <Stack>
      <Group gap="xs" aria-live="polite">
        <Text>Status</Text>
        <Badge variant="filled" color={status.color}>
          {status.label}
        </Badge>
        <Text size="sm" c="dimmed">
          {imp.rows} row{imp.rows === 1 ? "" : "s"} read
        </Text>
      </Group>
      <Progress.Root size="lg">
        <Progress.Section value={percent} animated={running} striped={running} aria-label="Rows applied" />
      </Progress.Root>
      <Box maw={360}>
        <DataTable
          label="Counts"
          noHeader
          tableProps={{ withTableBorder: true, striped: false, highlightOnHover: false }}
          rows={[
            ["Rows read", imp.rows] as const,
            ["Created", imp.created] as const,
            ["Updated", imp.updated] as const,
            ["Failed", imp.failed] as const,
            ...(imp.awaitingConfirmation > 0 ? [["Awaiting confirmation", imp.awaitingConfirmation] as const] : []),
          ]}
          rowKey={([label]) => label}
          columns={[
            { header: "Count", rowHeader: true, cell: ([label]) => label },
            { header: "Rows", cell: ([, n]) => n },
          ]}
        />
      </Box>
      {imp.awaitingConfirmation > 0 && (
        <Text size="sm" c="dimmed">
          Double opt-in: {imp.awaitingConfirmation} contact{imp.awaitingConfirmation === 1 ? " was" : "s were"} sent a confirmation email and stay
          unsubscribed until they confirm.
        </Text>
      )}
      <RowErrors imp={imp} />
      {!running && (
        <Group>
          <Anchor component={Link} to="/contacts">
            Back to contacts
          </Anchor>
          <Anchor component={Link} to="/contacts/import">
            Import another file
          </Anchor>
        </Group>
      )}
    </Stack>
  );
}

function RowErrors({ imp }: { imp: ContactImport }) {
  if (imp.errors.length === 0) {
    if (imp.status === "RUNNING") return null;
    return <Empty>{imp.status === "COMPLETED" ? "Every row was imported." : "The import could not finish; upload the file again."}</Empty>;
  }
  return (
    <Stack gap="xs">
      <Title order={3}>Rows not imported</Title>
      <Text size="sm" c="dimmed">
        Rows are numbered as a spreadsheet shows them: the header is row 1.
        {imp.failed > imp.errors.length && ` These are the first ${imp.errors.length} of ${imp.failed} errors.`}
      </Text>
      <DataTable
        label="Row errors"
        rows={imp.errors}
        // the errors only grow at the end, and a row may have two: the position is their identity
        rowKey={(_, i) => i}
        minWidth={420}
        columns={[
          { header: "Row", cell: (e) => e.row },
          { header: "Error", cell: (e) => e.message },
        ]}
      />
    </Stack>
  );
}
