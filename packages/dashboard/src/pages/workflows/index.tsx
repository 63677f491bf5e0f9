import { lazy } from "react";
import { Route, Routes } from "react-router";
import { WorkflowList } from "./WorkflowList";

// React Flow comes with one workflow's page, not with the list.
const WorkflowPage = lazy(() => import("./WorkflowPage"));

/** `/workflows` is the list, `/workflows/:id/…` one workflow (its graph and its executions). */
export default function WorkflowsArea() {
  return (
    <Routes>
      <Route index element={<WorkflowList />} />
      <Route path=":id/*" element={<WorkflowPage />} />
    </Routes>
  );
}
