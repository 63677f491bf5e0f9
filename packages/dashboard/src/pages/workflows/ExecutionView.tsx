import type { StepRun, Workflow } from "@mailroom/contracts";
import { Anchor, Badge, Group, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { ReactFlowProvider } from "@xyflow/react";
import { useMemo, useState } from "react";
import { Link, useParams } from "react-router";
import { useExecution } from "../../api/workflows";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { Canvas, type Selection } from "./Canvas";
import { executionPath } from "./graph";
import { STATUS_COLOR } from "./labels";

/** One execution: its path drawn on the graph, and each step run's status, times and error. */
export function ExecutionView({ workflow }: { workflow: Workflow }) {
  const { executionId = "" } = useParams();
  // polled while it can still move on
  const [active, setActive] = useState(true);
  const execution = useExecution(workflow.id, executionId, active ? 2000 : false);
  const data = execution.data;
  if (data && active && !["RUNNING", "WAITING"].includes(data.status)) setActive(false);

  const path = useMemo(() => {
    if (!data) return undefined;
    const { edges } = executionPath(data.steps, workflow.transitions);
    const steps = new Map<string, StepRun>();
    for (const r of data.steps) steps.set(r.stepId, r);
    return { steps, edges };
  }, [data, workflow.transitions]);
  const [selection, setSelection] = useState<Selection>(null);
  const name = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? "(deleted step)";

  return (
    <QueryStatus query={execution} what="the execution">
      {() => (
        <Stack>
          <Group justify="space-between">
            <Group gap="sm">
              <Title order={3}>Execution {data!.id}</Title>
              <Badge variant="filled" color={STATUS_COLOR[data!.status]} aria-label={`Status ${data!.status}`}>
                {data!.status}
              </Badge>
            </Group>
            <Anchor component={Link} to="..">
              All executions
            </Anchor>
          </Group>
          <Text size="sm">
            Contact{" "}
            <Anchor component={Link} to={`/contacts/${encodeURIComponent(data!.contactId)}`}>
              {data!.contactId}
            </Anchor>
            , started {formatTime(data!.startedAt)}
            {data!.finishedAt && `, finished ${formatTime(data!.finishedAt)}`}
            {data!.exitReason && ` (${data!.exitReason})`}
          </Text>
          <Paper withBorder h={520}>
            <ReactFlowProvider>
              <Canvas workflow={workflow} editable={false} selection={selection} onSelect={setSelection} path={path} />
            </ReactFlowProvider>
          </Paper>
          <Table aria-label="Step runs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Step</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Started</Table.Th>
                <Table.Th>Finished</Table.Th>
                <Table.Th>Error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data!.steps.map((r) => (
                // a step runs at most once per execution (the graph has no cycles), so its id is the key
                <Table.Tr key={`${r.stepId}-${r.startedAt}`}>
                  <Table.Td>{name(r.stepId)}</Table.Td>
                  <Table.Td>
                    <Badge variant="filled" color={STATUS_COLOR[r.status]}>
                      {r.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{formatTime(r.startedAt)}</Table.Td>
                  <Table.Td>{formatTime(r.finishedAt)}</Table.Td>
                  <Table.Td>{r.error ?? "—"}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </QueryStatus>
  );
}
