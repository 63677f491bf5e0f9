import { AppError, emailRoutes, routeOf, sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Domains } from "../usecases/domains.js";

/** Sending domains (decisions.md §5) and the domain RPCs of other services and the CLI. */
export function registerDomains(server: RpcServer, domains: Domains): void {
  server
    .route(routeOf(emailRoutes, "sending.domains.create"), async ({ projectId, body }) => {
      const d = await domains.create(projectId, body.domain, false, body.warmup ?? false);
      if (!d) throw new AppError("CONFLICT", `The project already has the domain ${body.domain}`);
      return { status: 201, body: d };
    })
    .route(routeOf(emailRoutes, "sending.domains.list"), async ({ projectId }) => ({ status: 200, body: { data: await domains.list(projectId) } }))
    .route(routeOf(emailRoutes, "sending.domains.get"), async ({ projectId, params }) => {
      const d = await domains.get(projectId, params.id);
      if (!d) throw AppError.notFound("Domain");
      return { status: 200, body: d };
    })
    .route(routeOf(emailRoutes, "sending.domains.update"), async ({ projectId, params, body }) => ({ status: 200, body: await domains.update(projectId, params.id, body) }))
    .route(routeOf(emailRoutes, "sending.domains.verify"), async ({ projectId, params }) => ({ status: 200, body: await domains.verify(projectId, params.id) }))
    .route(routeOf(emailRoutes, "sending.domains.delete"), async ({ projectId, params }) => {
      if (!(await domains.delete(projectId, params.id))) throw AppError.notFound("Domain");
      return { status: 204 };
    })
    .rpc(sendingRpc.domainVerified, async ({ projectId, email }) => ({ verified: await domains.senderVerified(projectId, email) }))
    .rpc(sendingRpc.forceVerifyDomain, async ({ projectId, domain }) => ({ domain: await domains.forceVerify(projectId, domain) }));
}
