import type { StepRun, Workflow } from "@mailroom/contracts";
import { Anchor, Badge, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { ReactFlowProvider } from "@xyflow/react";
import { useMemo, useState } from "react";
import { Link, useParams } from "react-router";
import { useExecution } from "../../api/workflows";
import { DataTable } from "../../components/DataTable";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { Canvas, type Selection } from "./Canvas";
import { executionPath } from "./graph";
import { STATUS_COLOR } from "./labels";
import { RunStatusBadge } from "./RunStatusBadge";

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
          <DataTable
            label="Step runs"
            rows={data!.steps}
            // a step runs at most once per execution (the graph has no cycles), so its id is the key
            rowKey={(r) => `${r.stepId}-${r.startedAt}`}
            minWidth={560}
            columns={[
              { header: "Step", cell: (r) => name(r.stepId) },
              { header: "Status", cell: (r) => <RunStatusBadge status={r.status} /> },
              { header: "Started", cell: (r) => formatTime(r.startedAt) },
              { header: "Finished", cell: (r) => formatTime(r.finishedAt) },
              { header: "Error", cell: (r) => r.error ?? "—" },
            ]}
          />
        </Stack>
      )}
    </QueryStatus>
  );
}
