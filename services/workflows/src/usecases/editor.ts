import {
  AppError,
  type CreateStepRequest,
  type CreateTransitionRequest,
  type CreateWorkflowRequest,
  graphProblems,
  labelForNewEdge,
  spliceEdges,
  STEP_LABELS,
  TRIGGER_CONFIGS,
  type TriggerConfig,
  type UpdateStepRequest,
  type UpdateWorkflowRequest,
  type Workflow,
  zodDetails,
} from "@mailroom/contracts";
import { isId, newId, type Q, type Sql } from "@mailroom/kit";
import { Cron } from "croner";
import type { StepRow, TransitionRow, WorkflowRow } from "../db/rows.js";
import { toStep, toTransition, toWorkflow } from "../db/rows.js";
import { type Graph, graphEdges, graphSteps, workflowsRepo } from "../db/workflows-repo.js";
import { type ConfigCheckEnv, checkStepConfig } from "./step-config.js";

const notFound = (what: string) => AppError.notFound(what);
const locked = () =>
  new AppError("WORKFLOW_LOCKED", "The workflow has RUNNING or WAITING executions; cancel them (or let them end) before changing its structure");

function assertGraph(g: Graph): void {
  const problems = graphProblems({ steps: graphSteps(g), transitions: graphEdges(g) });
  if (problems.length) throw AppError.validation("The change breaks the workflow graph rules", problems);
}

/** The workflow, its steps and transitions: create, read, edit, with the graph and locking rules. */
export class Editor {
  constructor(
    private readonly sql: Sql,
    private readonly check: ConfigCheckEnv,
  ) {}

  /** Runs an edit with the workflow row locked; `structural` edits are refused while executions are active. */
  private edit<T>(projectId: string, id: string, structural: boolean, fn: (tx: Q, w: WorkflowRow) => Promise<T>): Promise<T> {
    if (!isId(id)) throw notFound("Workflow");
    return this.sql.begin(async (tx) => {
      const w = await workflowsRepo.get(tx, projectId, id, true);
      if (!w) throw notFound("Workflow");
      if (structural && (await workflowsRepo.hasActiveExecutions(tx, id))) throw locked();
      const result = await fn(tx, w);
      await workflowsRepo.touch(tx, id);
      return result;
    }) as Promise<T>;
  }

  /** A workflow with its graph, as the API answers it. */
  get(projectId: string, id: string): Promise<Workflow> {
    return this.read(this.sql, projectId, id);
  }

  /**
   * The sending service asks before deleting a template (409 INVALID_STATE while a SEND_EMAIL step of
   * any workflow of the project names it), so a workflow never reaches a step whose template is gone.
   */
  templateInUse(projectId: string, templateId: string): Promise<boolean> {
    return workflowsRepo.templateInUse(this.sql, projectId, templateId);
  }

  private async read(q: Q, projectId: string, id: string): Promise<Workflow> {
    const w = isId(id) ? await workflowsRepo.get(q, projectId, id) : null;
    if (!w) throw notFound("Workflow");
    const g = await workflowsRepo.graph(q, id);
    return toWorkflow(w, g.steps, g.transitions);
  }

  async list(projectId: string, limit: number, page: number) {
    const { rows, total } = await workflowsRepo.list(this.sql, projectId, limit, (page - 1) * limit);
    const graphs = rows.length ? await workflowsRepo.graphs(this.sql, rows.map((r) => r.id)) : new Map<string, Graph>();
    return {
      workflows: rows.map((r) => toWorkflow(r, graphs.get(r.id)?.steps ?? [], graphs.get(r.id)?.transitions ?? [])),
      page,
      pageSize: limit,
      total,
      totalPages: Math.ceil(total / limit),
    };
  }

  async create(projectId: string, req: CreateWorkflowRequest): Promise<Workflow> {
    const id = newId();
    const triggerConfig = { eventName: req.eventName };
    await this.sql.begin(async (tx) => {
      await workflowsRepo.insert(tx, {
        id,
        project_id: projectId,
        name: req.name,
        description: req.description ?? null,
        enabled: false,
        allow_reentry: req.allowReentry ?? false,
        trigger_type: "EVENT",
        trigger_config: triggerConfig,
        trigger_event: req.eventName,
      });
      await workflowsRepo.insertStep(tx, {
        id: newId(),
        workflow_id: id,
        type: "TRIGGER",
        name: STEP_LABELS.TRIGGER,
        config: triggerConfig,
        position: { x: 0, y: 0 },
      });
    });
    return this.read(this.sql, projectId, id);
  }

  async update(projectId: string, id: string, req: UpdateWorkflowRequest): Promise<Workflow> {
    if (!isId(id)) throw notFound("Workflow");
    await this.sql.begin(async (tx) => {
      const w = await workflowsRepo.get(tx, projectId, id, true);
      if (!w) throw notFound("Workflow");
      const type = req.triggerType ?? w.trigger_type;
      let config: TriggerConfig = w.trigger_config;
      if (req.triggerConfig !== undefined || type !== w.trigger_type) {
        const parsed = TRIGGER_CONFIGS[type].safeParse(req.triggerConfig ?? {});
        if (!parsed.success) throw AppError.validation(`triggerConfig does not fit trigger type ${type}`, zodDetails(parsed.error, "triggerConfig"));
        config = parsed.data;
      }
      if (type === "SCHEDULE") checkCron(config as { cron: string; timezone?: string });
      const eventName = type === "EVENT" ? (config as { eventName: string }).eventName : null;
      const triggerChanged = type !== w.trigger_type || (type === "EVENT" && eventName !== w.trigger_event);
      if (triggerChanged && (await workflowsRepo.hasActiveExecutions(tx, id))) throw locked();
      if (eventName !== null && w.trigger_event !== null && eventName !== w.trigger_event && (await workflowsRepo.hasExecutions(tx, id))) {
        throw new AppError("INVALID_STATE", "The trigger event name cannot change after the first execution", { reason: "trigger_event_frozen" });
      }
      await workflowsRepo.update(tx, {
        ...w,
        name: req.name ?? w.name,
        description: req.description === undefined ? w.description : req.description,
        enabled: req.enabled ?? w.enabled,
        allow_reentry: req.allowReentry ?? w.allow_reentry,
        trigger_type: type,
        trigger_config: config,
        // kept while another trigger type is used, so switching back cannot rename a used event
        trigger_event: eventName ?? w.trigger_event,
      });
      await workflowsRepo.setTriggerStepConfig(tx, id, config);
    });
    return this.read(this.sql, projectId, id);
  }

  async delete(projectId: string, id: string): Promise<void> {
    await this.edit(projectId, id, true, (tx) => workflowsRepo.delete(tx, id));
  }

  async addStep(projectId: string, id: string, req: CreateStepRequest) {
    const config = await checkStepConfig(this.check, projectId, req.type, req.config);
    return this.edit(projectId, id, true, async (tx) => {
      const g = await workflowsRepo.graph(tx, id);
      const after = req.after === undefined ? undefined : g.steps.find((s) => s.id === req.after);
      if (req.after !== undefined && !after) throw AppError.validation("Unknown step", [{ path: "after", message: "no such step in this workflow" }]);
      const step: StepRow = {
        id: newId(),
        workflow_id: id,
        type: req.type,
        name: req.name ?? STEP_LABELS[req.type],
        config,
        position: req.position ?? (after ? { x: after.position.x, y: after.position.y + 120 } : { x: 0, y: 120 * g.steps.length }),
      };
      const edges: TransitionRow[] = [];
      if (after) {
        const label = labelForNewEdge(after, graphEdges(g));
        edges.push({ id: newId(), workflow_id: id, from_step_id: after.id, to_step_id: step.id, branch: label.branch, wait_outcome: label.waitOutcome });
      }
      assertGraph({ steps: [...g.steps, step], transitions: [...g.transitions, ...edges] });
      await workflowsRepo.insertStep(tx, step);
      for (const e of edges) await workflowsRepo.insertTransition(tx, e);
      return toStep(step);
    });
  }

  async updateStep(projectId: string, id: string, stepId: string, req: UpdateStepRequest) {
    if (!isId(stepId)) throw notFound("Step");
    const found = isId(id) ? await workflowsRepo.step(this.sql, projectId, id, stepId) : null;
    if (!found) throw notFound("Step");
    if (req.config !== undefined && found.type === "TRIGGER") {
      throw AppError.validation("The TRIGGER step's config is the workflow's trigger", [
        { path: "config", message: "change it with PATCH /workflows/{id} (triggerType, triggerConfig)" },
      ]);
    }
    const config = req.config === undefined ? undefined : await checkStepConfig(this.check, projectId, found.type, req.config);
    // config edits are allowed while executions run (decisions.md §11); only the graph rules apply
    return this.edit(projectId, id, false, async (tx) => {
      const g = await workflowsRepo.graph(tx, id);
      const step = g.steps.find((s) => s.id === stepId);
      if (!step) throw notFound("Step");
      const next: StepRow = { ...step, name: req.name ?? step.name, config: config ?? step.config, position: req.position ?? step.position };
      assertGraph({ steps: g.steps.map((s) => (s.id === stepId ? next : s)), transitions: g.transitions });
      await workflowsRepo.updateStep(tx, next);
      return toStep(next);
    });
  }

  async deleteStep(projectId: string, id: string, stepId: string, splice: boolean): Promise<void> {
    if (!isId(stepId)) throw notFound("Step");
    await this.edit(projectId, id, true, async (tx) => {
      const g = await workflowsRepo.graph(tx, id);
      const step = g.steps.find((s) => s.id === stepId);
      if (!step) throw notFound("Step");
      if (step.type === "TRIGGER") throw AppError.validation("The TRIGGER step cannot be deleted", [{ path: "stepId", message: "TRIGGER step" }]);
      const remaining = g.transitions.filter((t) => t.from_step_id !== stepId && t.to_step_id !== stepId);
      const added: TransitionRow[] = [];
      if (splice) {
        const spliced = spliceEdges(stepId, graphEdges(g));
        if (!Array.isArray(spliced)) throw AppError.validation("Cannot splice this step", [spliced]);
        for (const e of spliced) {
          added.push({ id: newId(), workflow_id: id, from_step_id: e.fromStepId, to_step_id: e.toStepId, branch: e.branch, wait_outcome: e.waitOutcome });
        }
      }
      assertGraph({ steps: g.steps.filter((s) => s.id !== stepId), transitions: [...remaining, ...added] });
      await workflowsRepo.deleteStep(tx, stepId);
      for (const e of added) await workflowsRepo.insertTransition(tx, e);
    });
  }

  async addTransition(projectId: string, id: string, req: CreateTransitionRequest) {
    return this.edit(projectId, id, true, async (tx) => {
      const g = await workflowsRepo.graph(tx, id);
      for (const key of ["fromStepId", "toStepId"] as const) {
        if (!g.steps.some((s) => s.id === req[key])) throw AppError.validation("Unknown step", [{ path: key, message: "no such step in this workflow" }]);
      }
      const t: TransitionRow = {
        id: newId(),
        workflow_id: id,
        from_step_id: req.fromStepId,
        to_step_id: req.toStepId,
        branch: req.branch ?? null,
        wait_outcome: req.waitOutcome ?? null,
      };
      assertGraph({ steps: g.steps, transitions: [...g.transitions, t] });
      await workflowsRepo.insertTransition(tx, t);
      return toTransition(t);
    });
  }

  async deleteTransition(projectId: string, id: string, transitionId: string): Promise<void> {
    if (!isId(transitionId)) throw notFound("Transition");
    await this.edit(projectId, id, true, async (tx) => {
      if (!(await workflowsRepo.deleteTransition(tx, id, transitionId))) throw notFound("Transition");
    });
  }
}

function checkCron(c: { cron: string; timezone?: string }): void {
  try {
    new Cron(c.cron, { timezone: c.timezone, paused: true }).stop();
  } catch (err) {
    throw AppError.validation("Invalid cron expression", [{ path: "triggerConfig.cron", message: (err as Error).message }]);
  }
}
