import { AppError, routeOf, templateRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Templates } from "../usecases/templates.js";

export function registerTemplates(server: RpcServer, templates: Templates): void {
  server
    .route(routeOf(templateRoutes, "sending.templates.list"), async ({ projectId, query }) => {
      const page = query.cursor ?? query.page ?? 1;
      return { status: 200, body: await templates.list(projectId, { page, limit: query.limit, type: query.type, search: query.search }) };
    })
    .route(routeOf(templateRoutes, "sending.templates.create"), async ({ projectId, body }) => ({ status: 201, body: await templates.create(projectId, body) }))
    .route(routeOf(templateRoutes, "sending.templates.get"), async ({ projectId, params }) => {
      const t = await templates.get(projectId, params.id);
      if (!t) throw AppError.notFound("Template");
      return { status: 200, body: t };
    })
    .route(routeOf(templateRoutes, "sending.templates.update"), async ({ projectId, params, body }) => {
      const t = await templates.update(projectId, params.id, body);
      if (!t) throw AppError.notFound("Template");
      return { status: 200, body: t };
    })
    .route(routeOf(templateRoutes, "sending.templates.delete"), async ({ projectId, params }) => {
      if (!(await templates.delete(projectId, params.id))) throw AppError.notFound("Template");
      return { status: 204 };
    });
}
