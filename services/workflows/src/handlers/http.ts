import { type HttpReply, routeOf, workflowsRoutes } from "@mailroom/contracts";
import { idempotencyIdOf, type RpcServer } from "@mailroom/kit";
import type { Editor } from "../usecases/editor.js";
import type { Executions } from "../usecases/executions.js";

const ok = (body: unknown, status = 200): HttpReply => ({ status, body });
const noContent: HttpReply = { status: 204 };

/** The /workflows routes of decisions.md §11: parse (done by the kit against the contract) → use case → reply. */
export function registerWorkflowRoutes(server: RpcServer, editor: Editor, executions: Executions): void {
  server
    .route(routeOf(workflowsRoutes, "workflows.list"), async ({ projectId, query }) => ok(await editor.list(projectId, query.limit, query.page ?? query.cursor ?? 1)))
    .route(routeOf(workflowsRoutes, "workflows.create"), async ({ projectId, body }) => ok(await editor.create(projectId, body), 201))
    .route(routeOf(workflowsRoutes, "workflows.get"), async ({ projectId, params }) => ok(await editor.get(projectId, params.id)))
    .route(routeOf(workflowsRoutes, "workflows.update"), async ({ projectId, params, body }) => ok(await editor.update(projectId, params.id, body)))
    .route(routeOf(workflowsRoutes, "workflows.delete"), async ({ projectId, params }) => (await editor.delete(projectId, params.id), noContent))
    .route(routeOf(workflowsRoutes, "workflows.steps.create"), async ({ projectId, params, body }) => ok(await editor.addStep(projectId, params.id, body), 201))
    .route(routeOf(workflowsRoutes, "workflows.steps.update"), async ({ projectId, params, body }) =>
      ok(await editor.updateStep(projectId, params.id, params.stepId, body)),
    )
    .route(routeOf(workflowsRoutes, "workflows.steps.delete"), async ({ projectId, params, query }) => {
      await editor.deleteStep(projectId, params.id, params.stepId, query.splice ?? false);
      return noContent;
    })
    .route(routeOf(workflowsRoutes, "workflows.transitions.create"), async ({ projectId, params, body }) =>
      ok(await editor.addTransition(projectId, params.id, body), 201),
    )
    .route(routeOf(workflowsRoutes, "workflows.transitions.delete"), async ({ projectId, params }) => {
      await editor.deleteTransition(projectId, params.id, params.transitionId);
      return noContent;
    })
    .route(routeOf(workflowsRoutes, "workflows.executions.start"), async ({ projectId, params, body, meta }) =>
      ok(await executions.start(projectId, params.id, body, idempotencyIdOf(meta)), 201),
    )
    .route(routeOf(workflowsRoutes, "workflows.executions.list"), async ({ projectId, params, query }) => ok(await executions.list(projectId, params.id, query)))
    .route(routeOf(workflowsRoutes, "workflows.executions.get"), async ({ projectId, params }) =>
      ok(await executions.get(projectId, params.id, params.executionId)),
    )
    .route(routeOf(workflowsRoutes, "workflows.executions.cancel"), async ({ projectId, params }) =>
      ok(await executions.cancel(projectId, params.id, params.executionId)),
    )
    .route(routeOf(workflowsRoutes, "workflows.executions.cancelAll"), async ({ projectId, params }) => ok(await executions.cancelAll(projectId, params.id)));
}
