import { routeOf, settingsRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";

export function registerSettings(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(settingsRoutes, "sending.settings.get"), async ({ projectId }) => ({ status: 200, body: await ctx.settings.get(projectId) }))
    .route(routeOf(settingsRoutes, "sending.settings.update"), async ({ projectId, body }) => ({
      status: 200,
      body: await ctx.settings.update(projectId, body),
    }));
}
