import { AppError, emailRoutes, routeOf, sendingRpc } from "@mailroom/contracts";
import { isId, type RpcServer } from "@mailroom/kit";
import { domainOf } from "../domain/domains.js";
import { domainsRepo } from "../db/domains-repo.js";
import type { Ctx } from "../usecases/context.js";
import { createDomain, deleteDomain, forceVerifyDomain, verifyDomain } from "../usecases/domains.js";

/** Sending domains (decisions.md §5) and the domain RPCs of other services and the CLI. */
export function registerDomains(server: RpcServer, ctx: Ctx): void {
  server
    .route(routeOf(emailRoutes, "sending.domains.create"), async ({ projectId, body }) => {
      const d = await createDomain(ctx, projectId, body.domain);
      if (!d) throw new AppError("CONFLICT", `The project already has the domain ${body.domain}`);
      return { status: 201, body: d };
    })
    .route(routeOf(emailRoutes, "sending.domains.list"), async ({ projectId }) => ({
      status: 200,
      body: { data: await domainsRepo.list(ctx.sql, projectId) },
    }))
    .route(routeOf(emailRoutes, "sending.domains.get"), async ({ projectId, params }) => {
      const d = isId(params.id) ? await domainsRepo.get(ctx.sql, projectId, params.id) : null;
      if (!d) throw AppError.notFound("Domain");
      return { status: 200, body: d };
    })
    .route(routeOf(emailRoutes, "sending.domains.verify"), async ({ projectId, params }) => {
      if (!isId(params.id)) throw AppError.notFound("Domain");
      return { status: 200, body: await verifyDomain(ctx, projectId, params.id) };
    })
    .route(routeOf(emailRoutes, "sending.domains.delete"), async ({ projectId, params }) => {
      if (!isId(params.id) || !(await deleteDomain(ctx, projectId, params.id))) throw AppError.notFound("Domain");
      return { status: 204 };
    })
    .rpc(sendingRpc.domainVerified, async ({ projectId, email }) => ({
      verified: await ctx.verifiedDomains.isVerified(projectId, domainOf(email)),
    }))
    .rpc(sendingRpc.forceVerifyDomain, async ({ projectId, domain }) => ({ domain: await forceVerifyDomain(ctx, projectId, domain) }));
}
