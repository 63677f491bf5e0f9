import { z } from "zod";
import { defineRoute } from "../route.js";
import { CursorPageQuery, EmailAddress, Id, IdParams, JsonObject, cursorPage } from "../common.js";
import { Execution, ExecutionDetail, ExecutionStatus } from "./records.js";

export const StartExecutionRequest = z
  .object({ contactId: Id.optional(), email: EmailAddress.optional(), context: JsonObject.optional() })
  .superRefine((r, ctx) => {
    if ((r.contactId === undefined) === (r.email === undefined)) {
      ctx.addIssue({ code: "custom", path: ["contactId"], message: "give exactly one of contactId and email" });
    }
  });
export type StartExecutionRequest = z.infer<typeof StartExecutionRequest>;

export const ListExecutionsQuery = CursorPageQuery.extend({ status: ExecutionStatus.optional() });
export type ListExecutionsQuery = z.infer<typeof ListExecutionsQuery>;

export const ExecutionList = cursorPage(Execution);
export type ExecutionList = z.infer<typeof ExecutionList>;

export const ExecutionParams = z.object({ id: Id, executionId: Id });
export const CancelAllResult = z.object({ cancelled: z.number().int() });
export type CancelAllResult = z.infer<typeof CancelAllResult>;

const base = { service: "workflows", auth: "secret", tag: "Workflows" } as const;

export const executionRoutes = [
  defineRoute({
    ...base,
    method: "POST",
    path: "/workflows/:id/executions",
    operation: "workflows.executions.start",
    summary: "Start an execution for a contact",
    params: IdParams,
    body: StartExecutionRequest,
    response: Execution,
    status: 201,
    idempotent: true,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/workflows/:id/executions",
    operation: "workflows.executions.list",
    summary: "List a workflow's executions",
    params: IdParams,
    query: ListExecutionsQuery,
    response: ExecutionList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/workflows/:id/executions/:executionId",
    operation: "workflows.executions.get",
    summary: "Get an execution with its step runs",
    params: ExecutionParams,
    response: ExecutionDetail,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/workflows/:id/executions/:executionId/cancel",
    operation: "workflows.executions.cancel",
    summary: "Cancel an execution",
    params: ExecutionParams,
    response: Execution,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/workflows/:id/executions/cancel-all",
    operation: "workflows.executions.cancelAll",
    summary: "Cancel every RUNNING or WAITING execution",
    params: IdParams,
    response: CancelAllResult,
    status: 200,
  }),
];
