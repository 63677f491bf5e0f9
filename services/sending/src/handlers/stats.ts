import { routeOf, statsRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";
import { statsSeries } from "../usecases/analytics.js";

/** The dashboard's counts per hour or day. */
export function registerStats(server: RpcServer, ctx: Ctx): void {
  server.route(routeOf(statsRoutes, "sending.stats"), async ({ projectId, query }) => ({
    status: 200,
    body: await statsSeries(ctx, projectId, query),
  }));
}
