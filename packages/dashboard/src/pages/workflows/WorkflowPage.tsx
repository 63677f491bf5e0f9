import { Anchor, Badge, Group, Stack, Tabs, } from "@mantine/core";
import { Link, Route, Routes, useLocation, useNavigate, useParams } from "react-router";
import { useWorkflow } from "../../api/workflows";
import { useCan } from "../../components/Can";
import { QueryStatus } from "../../components/QueryStatus";
import { Editor } from "./Editor";
import { ExecutionList } from "./Executions";
import { ExecutionView } from "./ExecutionView";
import { EnableSwitch } from "./SettingsPanel";
import { triggerText } from "./trigger";
import { PageHeader } from "../../components/PageHeader";

/** `/workflows/:id` (the canvas), `/workflows/:id/executions[/:executionId]`. Loaded with React Flow, apart from the list. */
export default function WorkflowPage() {
  const { id = "" } = useParams();
  const workflow = useWorkflow(id);
  const canEdit = useCan("editor");
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
            <PageHeader
              title={w.name}
              badge={
                <Badge variant="outline" color="dark">
                  {triggerText(w)}
                </Badge>
              }
              actions={
                <Group gap="lg">
                  <EnableSwitch workflow={w} canEdit={canEdit} />
                  <Anchor component={Link} to="/workflows">
                    All workflows
                  </Anchor>
                </Group>
              }
            />
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
