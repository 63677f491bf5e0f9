import { contactRoutes, type ExecutionStatus, routeOf, segmentRoutes, workflowsRoutes } from "@mailroom/contracts";
import { keepPreviousData } from "@tanstack/react-query";
import { useRouteMutation, useRouteQuery } from "./query";

const list = routeOf(workflowsRoutes, "workflows.list");
const get = routeOf(workflowsRoutes, "workflows.get");
const create = routeOf(workflowsRoutes, "workflows.create");
const update = routeOf(workflowsRoutes, "workflows.update");
const createStep = routeOf(workflowsRoutes, "workflows.steps.create");
const updateStep = routeOf(workflowsRoutes, "workflows.steps.update");
const deleteStep = routeOf(workflowsRoutes, "workflows.steps.delete");
const createTransition = routeOf(workflowsRoutes, "workflows.transitions.create");
const deleteTransition = routeOf(workflowsRoutes, "workflows.transitions.delete");
const executions = routeOf(workflowsRoutes, "workflows.executions.list");
const execution = routeOf(workflowsRoutes, "workflows.executions.get");
const cancelAll = routeOf(workflowsRoutes, "workflows.executions.cancelAll");
const eventNames = routeOf(contactRoutes, "contacts.eventNames");
const segments = routeOf(segmentRoutes, "contacts.segments.list");

export const WORKFLOWS_PAGE_SIZE = 20;
export const EXECUTIONS_PAGE_SIZE = 25;

export function useWorkflows(page: number) {
  return useRouteQuery(list, { query: { page, limit: WORKFLOWS_PAGE_SIZE } }, { placeholderData: keepPreviousData });
}

export function useWorkflow(id: string) {
  return useRouteQuery(get, { params: { id } });
}

export function useCreateWorkflowMutation() {
  return useRouteMutation(create, [list]);
}

export function useUpdateWorkflowMutation() {
  return useRouteMutation(update, [list, get]);
}

// Every graph edit refetches the workflow: the canvas is drawn from the server's graph, so it never
// drifts from what the engine will run.
export function useCreateStepMutation() {
  return useRouteMutation(createStep, [get]);
}

export function useUpdateStepMutation() {
  return useRouteMutation(updateStep, [get]);
}

export function useDeleteStepMutation() {
  return useRouteMutation(deleteStep, [get]);
}

export function useCreateTransitionMutation() {
  return useRouteMutation(createTransition, [get]);
}

export function useDeleteTransitionMutation() {
  return useRouteMutation(deleteTransition, [get]);
}

export function useExecutions(id: string, query: { status?: ExecutionStatus; cursor?: string }) {
  return useRouteQuery(executions, { params: { id }, query: { ...query, limit: EXECUTIONS_PAGE_SIZE } }, { placeholderData: keepPreviousData });
}

/** Executions of one status, polled: RUNNING and WAITING ones lock the graph (decisions §11). */
export function useExecutionsIn(id: string, status: ExecutionStatus, refetchInterval: number) {
  return useRouteQuery(executions, { params: { id }, query: { status, limit: 100 } }, { refetchInterval });
}

export function useExecution(id: string, executionId: string, refetchInterval: number | false) {
  return useRouteQuery(execution, { params: { id, executionId } }, { refetchInterval });
}

export function useCancelAllMutation() {
  return useRouteMutation(cancelAll, [executions, execution]);
}

export function useEventNames() {
  return useRouteQuery(eventNames, {});
}

/** For a SCHEDULE trigger's audience. */
export function useSegmentOptions() {
  return useRouteQuery(segments, {});
}
