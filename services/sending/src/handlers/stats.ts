import { routeOf, sendingRpc, statsRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";
import { statsSeries } from "../usecases/analytics.js";
import { linkClicksRepo } from "../db/link-clicks-repo.js";

/** The dashboard's counts per hour or day, and a campaign's clicks per link (the campaigns service
 * has checked the campaign is the project's before asking). */
export function registerStats(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(statsRoutes, "sending.stats"), async ({ projectId, query }) => ({
      status: 200,
      body: await statsSeries(ctx, projectId, query),
    }))
    .rpc(sendingRpc.campaignLinks, async ({ projectId, campaignId, limit }) => ({
      data: await linkClicksRepo.ofCampaign(ctx.sql, projectId, campaignId, limit),
    }));
}
