import { Badge, Stack } from "@mantine/core";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { useWorkflows } from "../../api/workflows";
import { nameColumn, QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { formatTime } from "../../lib/format";
import { CreateWorkflowModal } from "./CreateWorkflowModal";
import { triggerText } from "./trigger";

export function WorkflowList() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const workflows = useWorkflows(page);
  const [creating, setCreating] = useState(false);

  return (
    <Stack>
      <PageHeader title="Workflows" actions={<NewButton onClick={() => setCreating(true)}>New workflow</NewButton>} />
      <QueryTable
        label="Workflows"
        query={workflows}
        rows={(d) => d.workflows}
        empty="No workflow yet. A workflow runs steps for a contact when an event is tracked, on a schedule or by hand."
        onPage={(p) => setParams({ page: String(p) })}
        minWidth={560}
        columns={[
          nameColumn(),
          { header: "Trigger", cell: (w) => triggerText(w) },
          {
            header: "Enabled",
            cell: (w) => (
              <Badge color={w.enabled ? "teal.9" : "gray.7"} variant="filled">
                {w.enabled ? "Enabled" : "Disabled"}
              </Badge>
            ),
          },
          { header: "Created", cell: (w) => formatTime(w.createdAt) },
        ]}
      />
      <CreateWorkflowModal opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
