import type { Workflow } from "@mailroom/contracts";
import { Anchor, Badge, Button, Group, Pagination, Stack, Table, Title } from "@mantine/core";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useWorkflows } from "../../api/workflows";
import { useCan } from "../../components/Can";
import { Empty } from "../../components/QueryState";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { CreateWorkflowModal } from "./CreateWorkflowModal";
import { triggerText } from "./trigger";

export function WorkflowList() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const workflows = useWorkflows(page);
  const canEdit = useCan("editor");
  const [creating, setCreating] = useState(false);
  const newButton = canEdit && <Button onClick={() => setCreating(true)}>New workflow</Button>;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Workflows</Title>
        {newButton}
      </Group>
      <QueryStatus query={workflows} what="workflows">
        {() => {
          const data = workflows.data!;
          if (data.workflows.length === 0) return <Empty>No workflow yet. A workflow runs steps for a contact when an event is tracked, on a schedule or by hand.</Empty>;
          return (
            <>
              <WorkflowTable workflows={data.workflows} />
              {data.totalPages > 1 && <Pagination total={data.totalPages} value={data.page} onChange={(p) => setParams({ page: String(p) })} aria-label="Pages" />}
            </>
          );
        }}
      </QueryStatus>
      <CreateWorkflowModal opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function WorkflowTable({ workflows }: { workflows: Workflow[] }) {
  return (
    <Table striped highlightOnHover aria-label="Workflows">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Name</Table.Th>
          <Table.Th>Trigger</Table.Th>
          <Table.Th>Enabled</Table.Th>
          <Table.Th>Created</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {workflows.map((w) => (
          <Table.Tr key={w.id}>
            <Table.Td>
              <Anchor component={Link} to={encodeURIComponent(w.id)}>
                {w.name}
              </Anchor>
            </Table.Td>
            <Table.Td>{triggerText(w)}</Table.Td>
            <Table.Td>
              <Badge color={w.enabled ? "teal.9" : "gray.7"} variant="filled">
                {w.enabled ? "Enabled" : "Disabled"}
              </Badge>
            </Table.Td>
            <Table.Td>{formatTime(w.createdAt)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
