import { EXECUTION_STATUSES, ExecutionStatus } from "@mailroom/contracts";
import { Anchor, Badge, Select, Stack, Table } from "@mantine/core";
import { Link, useSearchParams } from "react-router";
import { useExecutions } from "../../api/workflows";
import { Pager } from "../../components/Pager";
import { Empty } from "../../components/QueryState";
import { QueryStatus } from "../../components/QueryStatus";
import { useCursorTrail } from "../../lib/cursors";
import { formatTime } from "../../lib/format";
import { STATUS_COLOR } from "./labels";

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
      <QueryStatus query={executions} what="executions">
        {() => {
          const data = executions.data!;
          if (data.data.length === 0) return <Empty>{status ? `No ${status.toLowerCase()} execution.` : "No execution yet. Enable the workflow and its trigger starts them."}</Empty>;
          return (
            <>
              <Table striped highlightOnHover aria-label="Executions">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Execution</Table.Th>
                    <Table.Th>Contact</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Started</Table.Th>
                    <Table.Th>Finished</Table.Th>
                    <Table.Th>Exit reason</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.data.map((e) => (
                    <Table.Tr key={e.id}>
                      <Table.Td>
                        <Anchor component={Link} to={encodeURIComponent(e.id)} ff="monospace" size="sm">
                          {e.id}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={`/contacts/${encodeURIComponent(e.contactId)}`} size="sm">
                          {e.contactId}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="filled" color={STATUS_COLOR[e.status]}>
                          {e.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td>{formatTime(e.startedAt)}</Table.Td>
                      <Table.Td>{formatTime(e.finishedAt)}</Table.Td>
                      <Table.Td>{e.exitReason ?? "—"}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              <Pager
                label="Executions"
                page={trail.page}
                hasPrevious={trail.hasPrevious}
                hasMore={data.hasMore && data.cursor !== null}
                onPrevious={trail.previous}
                onNext={() => data.cursor && trail.next(data.cursor)}
              />
            </>
          );
        }}
      </QueryStatus>
    </Stack>
  );
}
