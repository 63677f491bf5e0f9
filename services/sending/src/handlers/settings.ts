import { AppError, routeOf, sendingRpc, settingsRoutes } from "@mailroom/contracts";
import { isId, type RpcServer } from "@mailroom/kit";
import { templatesRepo } from "../db/templates-repo.js";
import { domainOf } from "../domain/domains.js";
import { sendConfirmation } from "../usecases/confirmation.js";
import type { Ctx } from "../usecases/context.js";

const TEMPLATE_PATH = "doubleOptIn.templateId";

/**
 * Why a template cannot be the double opt-in confirmation, or null when it can: it must be the
 * project's, and its sender on a domain verified in the project, since a confirmation carries the
 * tenant's words only from its own domain (decisions.md §15).
 */
async function confirmationTemplateProblem(ctx: Ctx, projectId: string, templateId: string): Promise<string | null> {
  const template = isId(templateId) ? await templatesRepo.get(ctx.sql, projectId, templateId) : null;
  if (!template) return "not a template of this project";
  if (!template.from) return "the template has no sender: a confirmation in the project's words goes from its own verified domain";
  if (!(await ctx.verifiedDomains.isVerified(projectId, domainOf(template.from)))) {
    return `the template's sender domain ${domainOf(template.from)} is not verified in this project`;
  }
  return null;
}

export function registerSettings(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(settingsRoutes, "sending.settings.get"), async ({ projectId }) => ({ status: 200, body: await ctx.settings.get(projectId) }))
    .route(routeOf(settingsRoutes, "sending.settings.update"), async ({ projectId, body }) => {
      const templateId = body.doubleOptIn?.templateId;
      const problem = templateId ? await confirmationTemplateProblem(ctx, projectId, templateId) : null;
      if (problem) throw AppError.validation(problem, [{ path: TEMPLATE_PATH, message: problem }]);
      return { status: 200, body: await ctx.settings.update(projectId, body) };
    })
    // asked by the contacts service when a public key subscribes (its answer is cached there briefly)
    .rpc(sendingRpc.doubleOptIn, async ({ projectId }) => (await ctx.settings.get(projectId)).doubleOptIn)
    .rpc(sendingRpc.confirmationEmail, (req) => sendConfirmation(ctx, req));
}
