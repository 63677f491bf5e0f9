import { Anchor, Badge, Group, Stack, Tabs, Title } from "@mantine/core";
import { Link, Route, Routes, useLocation, useNavigate, useParams } from "react-router";
import { useWorkflow } from "../../api/workflows";
import { QueryStatus } from "../../components/QueryStatus";
import { Editor } from "./Editor";
import { ExecutionList } from "./Executions";
import { ExecutionView } from "./ExecutionView";
import { triggerText } from "./trigger";

/** `/workflows/:id` (the canvas), `/workflows/:id/executions[/:executionId]`. Loaded with React Flow, apart from the list. */
export default function WorkflowPage() {
  const { id = "" } = useParams();
  const workflow = useWorkflow(id);
  const location = useLocation();
  const navigate = useNavigate();
  const base = `/workflows/${encodeURIComponent(id)}`;
  const tab = location.pathname.includes(`${base}/executions`) ? "executions" : "editor";

  return (
    <QueryStatus query={workflow} what="the workflow">
      {() => {
        const w = workflow.data!;
        return (
          <Stack>
            <Group justify="space-between">
              <Group gap="sm">
                <Title order={2}>{w.name}</Title>
                <Badge color={w.enabled ? "teal.9" : "gray.7"} variant="filled">
                  {w.enabled ? "Enabled" : "Disabled"}
                </Badge>
                <Badge variant="outline" color="dark">
                  {triggerText(w)}
                </Badge>
              </Group>
              <Anchor component={Link} to="/workflows">
                All workflows
              </Anchor>
            </Group>
            <Tabs value={tab} onChange={(v) => navigate(v === "executions" ? `${base}/executions` : base)}>
              <Tabs.List>
                <Tabs.Tab value="editor">Graph</Tabs.Tab>
                <Tabs.Tab value="executions">Executions</Tabs.Tab>
              </Tabs.List>
            </Tabs>
            <Routes>
              <Route index element={<Editor workflow={w} />} />
              <Route path="executions" element={<ExecutionList workflowId={w.id} />} />
              <Route path="executions/:executionId" element={<ExecutionView workflow={w} />} />
            </Routes>
          </Stack>
        );
      }}
    </QueryStatus>
  );
}
