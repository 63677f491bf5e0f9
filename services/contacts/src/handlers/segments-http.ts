import { AppError, type HttpReply, routeOf, segmentRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { SegmentQueries } from "../usecases/segment-queries.js";
import type { SegmentsService } from "../usecases/segments-service.js";

const ok = (body: unknown, status = 200): HttpReply => ({ status, body });
const segmentNotFound = () => AppError.notFound("Segment");

/** The /segments routes (decisions §9): parse (done by the kit against the contract) → use case → reply. */
export function registerSegmentRoutes(server: RpcServer, service: SegmentsService, queries: SegmentQueries): void {
  const read = async (projectId: string, id: string) => {
    const segment = await queries.get(projectId, id);
    if (!segment) throw segmentNotFound();
    return segment;
  };
  server
    .route(routeOf(segmentRoutes, "contacts.segments.count"), async ({ projectId, body }) => ok({ count: await queries.count(projectId, body.filters) }))
    .route(routeOf(segmentRoutes, "contacts.segments.list"), async ({ projectId }) => ok(await queries.list(projectId)))
    .route(routeOf(segmentRoutes, "contacts.segments.create"), async ({ projectId, body }) => {
      const row = await service.create(projectId, body);
      return ok(await read(projectId, row.id), 201);
    })
    .route(routeOf(segmentRoutes, "contacts.segments.get"), async ({ projectId, params }) => ok(await read(projectId, params.id)))
    .route(routeOf(segmentRoutes, "contacts.segments.update"), async ({ projectId, params, body }) => {
      if (!(await service.update(projectId, params.id, body))) throw segmentNotFound();
      return ok(await read(projectId, params.id));
    })
    .route(routeOf(segmentRoutes, "contacts.segments.delete"), async ({ projectId, params }) => {
      if (!(await service.remove(projectId, params.id))) throw segmentNotFound();
      return { status: 204 };
    })
    .route(routeOf(segmentRoutes, "contacts.segments.contacts"), async ({ projectId, params, query }) => {
      const page = await queries.members(projectId, params.id, query);
      if (!page) throw segmentNotFound();
      return ok(page);
    });
}
