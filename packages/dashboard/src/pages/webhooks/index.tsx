import { lazy } from "react";
import { Route, Routes } from "react-router";
import { WebhookList } from "./WebhookList";

// One endpoint's page (its deliveries log) comes when opened, not with the list.
const WebhookPage = lazy(() => import("./WebhookPage"));

/** `/webhooks` is the list of endpoints, `/webhooks/:id` one endpoint with its deliveries. */
export default function WebhooksArea() {
  return (
    <Routes>
      <Route index element={<WebhookList />} />
      <Route path=":id" element={<WebhookPage />} />
    </Routes>
  );
}
