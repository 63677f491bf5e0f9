import { routeOf, sendingRpc, statsRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Analytics } from "../usecases/analytics.js";

/** The dashboard's counts per hour or day, a campaign's clicks per link and its recipients held by
 * a provider's limit (the campaigns service has checked the campaign is the project's before asking). */
export function registerStats(server: RpcServer, analytics: Analytics): void {
  server
    .route(routeOf(statsRoutes, "sending.stats"), async ({ projectId, query }) => ({ status: 200, body: await analytics.stats(projectId, query) }))
    .rpc(sendingRpc.campaignThrottled, async ({ projectId, campaignId }) => ({ throttled: await analytics.campaignThrottled(projectId, campaignId) }))
    .rpc(sendingRpc.campaignLinks, async ({ projectId, campaignId, limit }) => ({ data: await analytics.campaignLinks(projectId, campaignId, limit) }));
}
