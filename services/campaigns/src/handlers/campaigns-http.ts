import { campaignRoutes, type HttpReply, routeOf } from "@mailroom/contracts";
import { idempotencyIdOf, type RpcServer } from "@mailroom/kit";
import type { CampaignsService } from "../usecases/campaigns-service.js";

const ok = (body: unknown): HttpReply => ({ status: 200, body });
const success = (data: unknown): HttpReply => ok({ success: true, data });

/** The /campaigns routes: parse (done by the kit against the contract) → use case → reply. */
export function registerCampaignRoutes(server: RpcServer, campaigns: CampaignsService): void {
  server
    .route(routeOf(campaignRoutes, "campaigns.list"), async ({ projectId, query }) => ok(await campaigns.list(projectId, query)))
    .route(routeOf(campaignRoutes, "campaigns.create"), async ({ projectId, body }) => success(await campaigns.create(projectId, body)))
    .route(routeOf(campaignRoutes, "campaigns.get"), async ({ projectId, params }) => ok(await campaigns.get(projectId, params.id)))
    .route(routeOf(campaignRoutes, "campaigns.update"), async ({ projectId, params, body }) => ok(await campaigns.update(projectId, params.id, body)))
    .route(routeOf(campaignRoutes, "campaigns.delete"), async ({ projectId, params }) => {
      await campaigns.remove(projectId, params.id);
      return { status: 204 };
    })
    .route(routeOf(campaignRoutes, "campaigns.send"), async ({ projectId, params, body, meta }) =>
      success(await campaigns.send(projectId, params.id, body.scheduledFor, idempotencyIdOf(meta))),
    )
    .route(routeOf(campaignRoutes, "campaigns.cancel"), async ({ projectId, params }) => success(await campaigns.cancel(projectId, params.id)))
    .route(routeOf(campaignRoutes, "campaigns.test"), async ({ projectId, params, body }) => success(await campaigns.test(projectId, params.id, body.email, body.variant)))
    .route(routeOf(campaignRoutes, "campaigns.links"), async ({ projectId, params }) => ok(await campaigns.links(projectId, params.id)))
    .route(routeOf(campaignRoutes, "campaigns.checks"), async ({ projectId, params }) => ok(await campaigns.checks(projectId, params.id)));
}
