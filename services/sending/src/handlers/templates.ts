import { AppError, routeOf, sendingRpc, TemplateInUseRpcReply, templateRoutes } from "@mailroom/contracts";
import { isId, newId, type RpcServer } from "@mailroom/kit";
import { assertRendersInBounds, parseTemplate } from "../domain/render.js";
import { templatesRepo } from "../db/templates-repo.js";
import type { Ctx } from "../usecases/context.js";
import { assertSenderVerified } from "../usecases/queue-email.js";

/**
 * Whether a workflow step uses the template: asked of the workflows service, which answers
 * `workflows.templateInUse`. No responder (not deployed yet) means not used.
 */
async function templateInUse(ctx: Ctx, projectId: string, templateId: string): Promise<boolean> {
  const reply = await ctx.rpc.send(sendingRpc.templateInUse.operation, { projectId, templateId }, 3000);
  if (reply.ok) return TemplateInUseRpcReply.parse(reply.result).inUse;
  if (reply.error.error === "SERVICE_UNAVAILABLE" && /not running/i.test(reply.error.message)) return false;
  throw AppError.fromWire(reply.error);
}

/**
 * Liquid syntax, the render bounds and the template's own sender are checked when it is saved, not
 * when it is used.
 */
async function checkTemplate(ctx: Ctx, projectId: string, t: { subject?: string; body?: string; from?: string | null }) {
  await assertRendersInBounds(parseTemplate({ subject: t.subject ?? "", body: t.body ?? "" }));
  if (t.from) await assertSenderVerified(ctx, projectId, t.from);
}

export function registerTemplates(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(templateRoutes, "sending.templates.list"), async ({ projectId, query }) => {
      const page = query.cursor ?? query.page ?? 1;
      const body = await templatesRepo.list(ctx.sql, projectId, { page, limit: query.limit, type: query.type, search: query.search });
      return { status: 200, body };
    })
    .route(routeOf(templateRoutes, "sending.templates.create"), async ({ projectId, body }) => {
      await checkTemplate(ctx, projectId, body);
      return { status: 201, body: await templatesRepo.create(ctx.sql, projectId, newId(), body) };
    })
    .route(routeOf(templateRoutes, "sending.templates.get"), async ({ projectId, params }) => {
      const t = isId(params.id) ? await templatesRepo.get(ctx.sql, projectId, params.id) : null;
      if (!t) throw AppError.notFound("Template");
      return { status: 200, body: t };
    })
    .route(routeOf(templateRoutes, "sending.templates.update"), async ({ projectId, params, body }) => {
      if (!isId(params.id)) throw AppError.notFound("Template");
      await checkTemplate(ctx, projectId, body);
      const t = await templatesRepo.update(ctx.sql, projectId, params.id, body);
      if (!t) throw AppError.notFound("Template");
      return { status: 200, body: t };
    })
    .route(routeOf(templateRoutes, "sending.templates.delete"), async ({ projectId, params }) => {
      if (!isId(params.id) || !(await templatesRepo.get(ctx.sql, projectId, params.id))) throw AppError.notFound("Template");
      if (await templateInUse(ctx, projectId, params.id)) {
        throw new AppError("INVALID_STATE", "A workflow step uses this template");
      }
      await templatesRepo.delete(ctx.sql, projectId, params.id);
      return { status: 204 };
    });
}
