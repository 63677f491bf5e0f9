import { AppError, emailRoutes, routeOf, sendingRpc } from "@mailroom/contracts";
import { isId, type RpcServer } from "@mailroom/kit";
import { emailsRepo } from "../db/emails-repo.js";
import { templatesRepo } from "../db/templates-repo.js";
import type { Ctx } from "../usecases/context.js";
import { emailTimeline } from "../usecases/analytics.js";
import { enqueueBatch, enqueueEmail } from "../usecases/enqueue.js";

/** Email records, and the RPCs campaigns and workflows send through. */
export function registerEmails(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(emailRoutes, "sending.emails.list"), async ({ projectId, query }) => {
      // Ids are UUIDs: a filter or cursor that is not one matches nothing.
      if ([query.contactId, query.campaignId, query.cursor].some((v) => v !== undefined && !isId(v))) {
        return { status: 200, body: { data: [], cursor: null, hasMore: false } };
      }
      return { status: 200, body: await emailsRepo.list(ctx.sql, projectId, query) };
    })
    .route(routeOf(emailRoutes, "sending.emails.get"), async ({ projectId, params }) => {
      const email = isId(params.id) ? await emailsRepo.get(ctx.sql, projectId, params.id) : null;
      if (!email) throw AppError.notFound("Email");
      return { status: 200, body: email };
    })
    .route(routeOf(emailRoutes, "sending.emails.events"), async ({ projectId, params }) => ({
      status: 200,
      body: { data: await emailTimeline(ctx, projectId, params.id) },
    }))
    .rpc(sendingRpc.enqueue, (req) => enqueueEmail(ctx, req))
    .rpc(sendingRpc.enqueueBatch, (req) => enqueueBatch(ctx, req))
    .rpc(sendingRpc.templateExists, async ({ projectId, templateId }) => {
      const t = isId(templateId) ? await templatesRepo.get(ctx.sql, projectId, templateId) : null;
      return { exists: t !== null, type: t?.type ?? null };
    });
}
