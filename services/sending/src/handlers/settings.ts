import { AppError, routeOf, sendingRpc, settingsRoutes } from "@mailroom/contracts";
import { isId, type RpcServer } from "@mailroom/kit";
import { templatesRepo } from "../db/templates-repo.js";
import { sendConfirmation } from "../usecases/confirmation.js";
import type { Ctx } from "../usecases/context.js";

export function registerSettings(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(settingsRoutes, "sending.settings.get"), async ({ projectId }) => ({ status: 200, body: await ctx.settings.get(projectId) }))
    .route(routeOf(settingsRoutes, "sending.settings.update"), async ({ projectId, body }) => {
      const templateId = body.doubleOptIn?.templateId;
      if (templateId && !(isId(templateId) && (await templatesRepo.get(ctx.sql, projectId, templateId)))) {
        const path = "doubleOptIn.templateId";
        throw AppError.validation("not a template of this project", [{ path, message: "not a template of this project" }]);
      }
      return { status: 200, body: await ctx.settings.update(projectId, body) };
    })
    // asked by the contacts service when a public key subscribes (its answer is cached there briefly)
    .rpc(sendingRpc.doubleOptIn, async ({ projectId }) => (await ctx.settings.get(projectId)).doubleOptIn)
    .rpc(sendingRpc.confirmationEmail, (req) => sendConfirmation(ctx, req));
}
