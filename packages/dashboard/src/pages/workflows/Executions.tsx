import { EXECUTION_STATUSES, type Execution, ExecutionStatus } from "@mailroom/contracts";
import { Select, Stack } from "@mantine/core";
import { useSearchParams } from "react-router";
import { useExecutions } from "../../api/workflows";
import { linkColumn, QueryTable } from "../../components/DataTable";
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
        query={executions}
        trail={trail}
        empty={status ? `No ${status.toLowerCase()} execution.` : "No execution yet. Enable the workflow and its trigger starts them."}
        minWidth={720}
        columns={[
          linkColumn<Execution>("Execution", (e) => encodeURIComponent(e.id), (e) => e.id, { ff: "monospace", size: "sm" }),
          linkColumn<Execution>("Contact", (e) => `/contacts/${encodeURIComponent(e.contactId)}`, (e) => e.contactId, { size: "sm" }),
          { header: "Status", cell: (e) => <RunStatusBadge status={e.status} /> },
          { header: "Started", cell: (e) => formatTime(e.startedAt) },
          { header: "Finished", cell: (e) => formatTime(e.finishedAt) },
          { header: "Exit reason", cell: (e) => e.exitReason ?? "—" },
        ]}
      />
    </Stack>
  );
}
