import { campaignRoutes, type HttpReply } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { CampaignsService } from "../usecases/campaigns-service.js";

function routeOf<const Op extends (typeof campaignRoutes)[number]["operation"]>(operation: Op) {
  const route = campaignRoutes.find((r) => r.operation === operation);
  if (!route) throw new Error(`no contract route ${operation}`);
  return route as Extract<(typeof campaignRoutes)[number], { operation: Op }>;
}

const ok = (body: unknown): HttpReply => ({ status: 200, body });
const success = (data: unknown): HttpReply => ok({ success: true, data });

/** The /campaigns routes: parse (done by the kit against the contract) → use case → reply. */
export function registerCampaignRoutes(server: RpcServer, campaigns: CampaignsService): void {
  server
    .route(routeOf("campaigns.list"), async ({ projectId, query }) => ok(await campaigns.list(projectId, query)))
    .route(routeOf("campaigns.create"), async ({ projectId, body }) => success(await campaigns.create(projectId, body)))
    .route(routeOf("campaigns.get"), async ({ projectId, params }) => ok(await campaigns.get(projectId, params.id)))
    .route(routeOf("campaigns.update"), async ({ projectId, params, body }) => ok(await campaigns.update(projectId, params.id, body)))
    .route(routeOf("campaigns.delete"), async ({ projectId, params }) => {
      await campaigns.remove(projectId, params.id);
      return { status: 204 };
    })
    .route(routeOf("campaigns.send"), async ({ projectId, params, body }) =>
      success(await campaigns.send(projectId, params.id, body.scheduledFor)),
    )
    .route(routeOf("campaigns.cancel"), async ({ projectId, params }) => success(await campaigns.cancel(projectId, params.id)))
    .route(routeOf("campaigns.test"), async ({ projectId, params, body }) => success(await campaigns.test(projectId, params.id, body.email)));
}
