import { EXECUTION_STATUSES, ExecutionStatus } from "@mailroom/contracts";
import { Anchor, Select, Stack } from "@mantine/core";
import { Link, useSearchParams } from "react-router";
import { useExecutions } from "../../api/workflows";
import { QueryTable } from "../../components/DataTable";
import { useCursorTrail } from "../../lib/cursors";
import { formatTime } from "../../lib/format";
import { RunStatusBadge } from "./RunStatusBadge";

/** A workflow's executions, newest first, filtered by status (in the URL), a cursor page at a time. */
export function ExecutionList({ workflowId }: { workflowId: string }) {
  const [params, setParams] = useSearchParams();
  const parsed = ExecutionStatus.safeParse(params.get("status") ?? undefined);
  const status = parsed.success ? parsed.data : undefined;
  const trail = useCursorTrail(status ?? "");
  const executions = useExecutions(workflowId, { status, cursor: trail.cursor });

  return (
    <Stack>
      <Select
        label="Status"
        placeholder="Any status"
        data={[...EXECUTION_STATUSES]}
        value={status ?? null}
        onChange={(v) => setParams(v ? { status: v } : {}, { replace: true })}
        clearable
        w={200}
      />
      <QueryTable
        label="Executions"
        what="executions"
        query={executions}
        rows={(d) => d.data}
        rowKey={(e) => e.id}
        trail={trail}
        empty={status ? `No ${status.toLowerCase()} execution.` : "No execution yet. Enable the workflow and its trigger starts them."}
        minWidth={720}
        columns={[
          {
            header: "Execution",
            cell: (e) => (
              <Anchor component={Link} to={encodeURIComponent(e.id)} ff="monospace" size="sm">
                {e.id}
              </Anchor>
            ),
          },
          {
            header: "Contact",
            cell: (e) => (
              <Anchor component={Link} to={`/contacts/${encodeURIComponent(e.contactId)}`} size="sm">
                {e.contactId}
              </Anchor>
            ),
          },
          { header: "Status", cell: (e) => <RunStatusBadge status={e.status} /> },
          { header: "Started", cell: (e) => formatTime(e.startedAt) },
          { header: "Finished", cell: (e) => formatTime(e.finishedAt) },
          { header: "Exit reason", cell: (e) => e.exitReason ?? "—" },
        ]}
      />
    </Stack>
  );
}
