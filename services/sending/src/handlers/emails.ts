import { AppError, emailRoutes, routeOf, sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Analytics } from "../usecases/analytics.js";
import type { Enqueue } from "../usecases/enqueue.js";
import type { Templates } from "../usecases/templates.js";

/** Email records, and the RPCs campaigns and workflows send through. */
export function registerEmails(server: RpcServer, analytics: Analytics, enqueue: Enqueue, templates: Templates): void {
  server
    .route(routeOf(emailRoutes, "sending.emails.list"), async ({ projectId, query }) => ({ status: 200, body: await analytics.list(projectId, query) }))
    .route(routeOf(emailRoutes, "sending.emails.get"), async ({ projectId, params }) => {
      const email = await analytics.get(projectId, params.id);
      if (!email) throw AppError.notFound("Email");
      return { status: 200, body: email };
    })
    .route(routeOf(emailRoutes, "sending.emails.events"), async ({ projectId, params }) => ({
      status: 200,
      body: { data: await analytics.timeline(projectId, params.id) },
    }))
    .rpc(sendingRpc.enqueue, (req) => enqueue.one(req))
    .rpc(sendingRpc.enqueueBatch, (req) => enqueue.batch(req))
    .rpc(sendingRpc.templateExists, async ({ projectId, templateId }) => {
      const t = await templates.get(projectId, templateId);
      return { exists: t !== null, type: t?.type ?? null };
    });
}
