import { z } from "zod";
import { defineRoute } from "../route.js";
import { Id, IdParams, PageNumberQuery, QueryBoolean, pageShape } from "../common.js";
import { EventName } from "../contacts/records.js";
import { TRANSITION_BRANCHES, Transition, WAIT_OUTCOMES, Workflow } from "./records.js";
import { CreateStepRequest, Step, TRIGGER_CONFIGS, TriggerConfig, TriggerType, UpdateStepRequest } from "./steps.js";

const WorkflowName = z.string().trim().min(1).max(200);
const Description = z.string().max(2000);

/** Creates an EVENT workflow, disabled, with its TRIGGER step. */
export const CreateWorkflowRequest = z.object({
  name: WorkflowName,
  description: Description.optional(),
  eventName: EventName,
  allowReentry: z.boolean().optional(),
});
export type CreateWorkflowRequest = z.infer<typeof CreateWorkflowRequest>;

/** `triggerConfig` is parsed as a plain object and then checked against the schema of its trigger
 * type, so that a mistake is reported at its own path (a union would only say "invalid input"). */
export const UpdateWorkflowRequest = z
  .object({
    name: WorkflowName.optional(),
    description: Description.nullable().optional(),
    enabled: z.boolean().optional(),
    allowReentry: z.boolean().optional(),
    triggerType: TriggerType.optional(),
    triggerConfig: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "EVENT {eventName}, MANUAL {}, SCHEDULE {cron, timezone?, segmentId?}" }),
  })
  .superRefine((req, ctx) => {
    if (req.triggerType === undefined) {
      // the service checks it against the stored type; here it only has to be one of the shapes
      if (req.triggerConfig !== undefined && !TriggerConfig.safeParse(req.triggerConfig).success) {
        ctx.addIssue({ code: "custom", path: ["triggerConfig"], message: "does not match any trigger type's config" });
      }
      return;
    }
    if (req.triggerConfig === undefined && req.triggerType !== "MANUAL") {
      ctx.addIssue({ code: "custom", path: ["triggerConfig"], message: `required when triggerType is ${req.triggerType}` });
      return;
    }
    const checked = TRIGGER_CONFIGS[req.triggerType].safeParse(req.triggerConfig ?? {});
    for (const issue of checked.error?.issues ?? []) {
      ctx.addIssue({ code: "custom", path: ["triggerConfig", ...issue.path], message: issue.message });
    }
  });
export type UpdateWorkflowRequest = z.infer<typeof UpdateWorkflowRequest>;

export const WorkflowList = pageShape("workflows", Workflow);
export type WorkflowList = z.infer<typeof WorkflowList>;

export const StepParams = z.object({ id: Id, stepId: Id });
export const TransitionParams = z.object({ id: Id, transitionId: Id });

/** splice=true reconnects the deleted step's neighbours; otherwise the graph is left disconnected. */
export const DeleteStepQuery = z.object({ splice: QueryBoolean.optional() });
export type DeleteStepQuery = z.infer<typeof DeleteStepQuery>;

export const CreateTransitionRequest = z
  .object({
    fromStepId: Id,
    toStepId: Id,
    branch: z.enum(TRANSITION_BRANCHES).nullable().optional(),
    waitOutcome: z.enum(WAIT_OUTCOMES).nullable().optional(),
  })
  .superRefine((t, ctx) => {
    // the other graph rules need the steps' types and are checked by the service
    if (t.fromStepId === t.toStepId) {
      ctx.addIssue({ code: "custom", path: ["toStepId"], message: "a step cannot lead to itself" });
    }
    if (t.branch != null && t.waitOutcome != null) {
      ctx.addIssue({ code: "custom", path: ["waitOutcome"], message: "an edge has a branch or a waitOutcome, not both" });
    }
  });
export type CreateTransitionRequest = z.infer<typeof CreateTransitionRequest>;

const base = { service: "workflows", auth: "secret", tag: "Workflows" } as const;

export const workflowRoutes = [
  defineRoute({
    ...base,
    method: "GET",
    path: "/workflows",
    operation: "workflows.list",
    summary: "List workflows",
    query: PageNumberQuery,
    response: WorkflowList,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/workflows",
    operation: "workflows.create",
    summary: "Create an EVENT workflow (disabled, with its TRIGGER step)",
    body: CreateWorkflowRequest,
    response: Workflow,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/workflows/:id",
    operation: "workflows.get",
    summary: "Get a workflow with its steps and transitions",
    params: IdParams,
    response: Workflow,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/workflows/:id",
    operation: "workflows.update",
    summary: "Change a workflow's settings and trigger (subject to locking)",
    params: IdParams,
    body: UpdateWorkflowRequest,
    response: Workflow,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/workflows/:id",
    operation: "workflows.delete",
    summary: "Delete a workflow (409 while executions are active)",
    params: IdParams,
    status: 204,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/workflows/:id/steps",
    operation: "workflows.steps.create",
    summary: "Add a step",
    params: IdParams,
    body: CreateStepRequest,
    response: Step,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "PATCH",
    path: "/workflows/:id/steps/:stepId",
    operation: "workflows.steps.update",
    summary: "Rename, move or reconfigure a step",
    params: StepParams,
    body: UpdateStepRequest,
    response: Step,
    status: 200,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/workflows/:id/steps/:stepId",
    operation: "workflows.steps.delete",
    summary: "Delete a step",
    params: StepParams,
    query: DeleteStepQuery,
    status: 204,
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/workflows/:id/transitions",
    operation: "workflows.transitions.create",
    summary: "Connect two steps",
    params: IdParams,
    body: CreateTransitionRequest,
    response: Transition,
    status: 201,
  }),
  defineRoute({
    ...base,
    method: "DELETE",
    path: "/workflows/:id/transitions/:transitionId",
    operation: "workflows.transitions.delete",
    summary: "Remove a transition",
    params: TransitionParams,
    status: 204,
  }),
];
