import { type HttpReply, workflowsRoutes } from "@mailroom/contracts";
import type { RpcServer, Sql } from "@mailroom/kit";
import type { Editor } from "../usecases/editor.js";
import type { Executions } from "../usecases/executions.js";

type Route = (typeof workflowsRoutes)[number];
function routeOf<const Op extends Route["operation"]>(operation: Op) {
  const route = workflowsRoutes.find((r) => r.operation === operation);
  if (!route) throw new Error(`no contract route ${operation}`);
  return route as Extract<Route, { operation: Op }>;
}

const ok = (body: unknown, status = 200): HttpReply => ({ status, body });
const noContent: HttpReply = { status: 204 };

/** The /workflows routes of decisions.md §11: parse (done by the kit against the contract) → use case → reply. */
export function registerWorkflowRoutes(server: RpcServer, sql: Sql, editor: Editor, executions: Executions): void {
  server
    .route(routeOf("workflows.list"), async ({ projectId, query }) => ok(await editor.list(projectId, query.limit, query.page ?? query.cursor ?? 1)))
    .route(routeOf("workflows.create"), async ({ projectId, body }) => ok(await editor.create(projectId, body), 201))
    .route(routeOf("workflows.get"), async ({ projectId, params }) => ok(await editor.read(sql, projectId, params.id)))
    .route(routeOf("workflows.update"), async ({ projectId, params, body }) => ok(await editor.update(projectId, params.id, body)))
    .route(routeOf("workflows.delete"), async ({ projectId, params }) => (await editor.delete(projectId, params.id), noContent))
    .route(routeOf("workflows.steps.create"), async ({ projectId, params, body }) => ok(await editor.addStep(projectId, params.id, body), 201))
    .route(routeOf("workflows.steps.update"), async ({ projectId, params, body }) =>
      ok(await editor.updateStep(projectId, params.id, params.stepId, body)),
    )
    .route(routeOf("workflows.steps.delete"), async ({ projectId, params, query }) => {
      await editor.deleteStep(projectId, params.id, params.stepId, query.splice ?? false);
      return noContent;
    })
    .route(routeOf("workflows.transitions.create"), async ({ projectId, params, body }) =>
      ok(await editor.addTransition(projectId, params.id, body), 201),
    )
    .route(routeOf("workflows.transitions.delete"), async ({ projectId, params }) => {
      await editor.deleteTransition(projectId, params.id, params.transitionId);
      return noContent;
    })
    .route(routeOf("workflows.executions.start"), async ({ projectId, params, body }) =>
      ok(await executions.start(projectId, params.id, body), 201),
    )
    .route(routeOf("workflows.executions.list"), async ({ projectId, params, query }) => ok(await executions.list(projectId, params.id, query)))
    .route(routeOf("workflows.executions.get"), async ({ projectId, params }) =>
      ok(await executions.get(projectId, params.id, params.executionId)),
    )
    .route(routeOf("workflows.executions.cancel"), async ({ projectId, params }) =>
      ok(await executions.cancel(projectId, params.id, params.executionId)),
    )
    .route(routeOf("workflows.executions.cancelAll"), async ({ projectId, params }) => ok(await executions.cancelAll(projectId, params.id)));
}
