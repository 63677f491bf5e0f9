import { type HttpReply, routeOf, webhookRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Webhooks } from "../usecases/webhooks.js";

const ok = (body: unknown, status = 200): HttpReply => ({ status, body });

/** The /webhooks routes of decisions.md §16: parse (done by the kit against the contract) → use case → reply. */
export function registerWebhookRoutes(server: RpcServer, webhooks: Webhooks): void {
  server
    .route(routeOf(webhookRoutes, "workflows.webhooks.create"), async ({ projectId, body }) => ok(await webhooks.create(projectId, body), 201))
    .route(routeOf(webhookRoutes, "workflows.webhooks.list"), async ({ projectId, query }) => ok(await webhooks.list(projectId, query.limit, query.page ?? query.cursor ?? 1)))
    .route(routeOf(webhookRoutes, "workflows.webhooks.get"), async ({ projectId, params }) => ok(await webhooks.get(projectId, params.id)))
    .route(routeOf(webhookRoutes, "workflows.webhooks.update"), async ({ projectId, params, body }) => ok(await webhooks.update(projectId, params.id, body)))
    .route(routeOf(webhookRoutes, "workflows.webhooks.delete"), async ({ projectId, params }) => {
      await webhooks.delete(projectId, params.id);
      return { status: 204 };
    })
    .route(routeOf(webhookRoutes, "workflows.webhooks.rotateSecret"), async ({ projectId, params }) => ok(await webhooks.rotateSecret(projectId, params.id)))
    .route(routeOf(webhookRoutes, "workflows.webhooks.test"), async ({ projectId, params }) => ok(await webhooks.test(projectId, params.id), 202))
    .route(routeOf(webhookRoutes, "workflows.webhooks.deliveries.list"), async ({ projectId, params, query }) => ok(await webhooks.deliveries(projectId, params.id, query)))
    .route(routeOf(webhookRoutes, "workflows.webhooks.deliveries.retry"), async ({ projectId, params }) =>
      ok(await webhooks.retry(projectId, params.id, params.deliveryId), 202),
    );
}
