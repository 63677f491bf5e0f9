import { json, type Q, traced } from "@mailroom/kit";
import type { GraphEdge, GraphStep } from "@mailroom/contracts";
import type { StepRow, TransitionRow, WorkflowRow } from "./rows.js";

export interface Graph {
  steps: StepRow[];
  transitions: TransitionRow[];
}

export const graphSteps = (g: Graph): GraphStep[] => g.steps.map((s) => ({ id: s.id, type: s.type, name: s.name, config: s.config }));
export const graphEdges = (g: Graph): GraphEdge[] =>
  g.transitions.map((t) => ({ fromStepId: t.from_step_id, toStepId: t.to_step_id, branch: t.branch, waitOutcome: t.wait_outcome }));

/**
 * A workflow's entry steps, joined to `workflows w`: `entry.trigger_step_id` and `entry.first_step_id`,
 * the step its TRIGGER's one edge leads to (the first edge by id, as the engine's graph takes it).
 */
export const ENTRY_STEPS = `left join lateral (
  select s.id as trigger_step_id,
    (select t.to_step_id from transitions t where t.workflow_id = w.id and t.from_step_id = s.id order by t.id limit 1) as first_step_id
  from steps s where s.workflow_id = w.id and s.type = 'TRIGGER' limit 1) entry on true`;

/** A workflow as a start reads it: with its entry steps (`ENTRY_STEPS`). */
export type StartingWorkflow = WorkflowRow & { trigger_step_id: string | null; first_step_id: string | null };

/** Every query is scoped by project: another project's workflow is simply not found. */
export const workflowsRepo = traced("WorkflowsRepo", {
  /** `lock`: edits take the row FOR UPDATE, which waits for starts holding it FOR KEY SHARE. */
  async get(q: Q, projectId: string, id: string, lock = false): Promise<WorkflowRow | null> {
    const rows = lock
      ? await q<WorkflowRow[]>`select * from workflows where project_id = ${projectId} and id = ${id} for update`
      : await q<WorkflowRow[]>`select * from workflows where project_id = ${projectId} and id = ${id}`;
    return rows[0] ?? null;
  },

  /**
   * The workflow a start is about to start, FOR KEY SHARE: starts run side by side, while a
   * structural edit (FOR UPDATE) waits for them. Run in the start's transaction.
   */
  async forStart(q: Q, projectId: string, id: string): Promise<StartingWorkflow | null> {
    const [w] = await q<StartingWorkflow[]>`
      select w.*, entry.trigger_step_id, entry.first_step_id from workflows w ${q.unsafe(ENTRY_STEPS)}
      where w.project_id = ${projectId} and w.id = ${id} for key share of w`;
    return w ?? null;
  },

  async graph(q: Q, workflowId: string): Promise<Graph> {
    const [steps, transitions] = await Promise.all([
      q<StepRow[]>`select id, workflow_id, type, name, config, position from steps where workflow_id = ${workflowId} order by created_at, id`,
      q<TransitionRow[]>`select * from transitions where workflow_id = ${workflowId} order by id`,
    ]);
    return { steps, transitions };
  },

  async list(q: Q, projectId: string, limit: number, offset: number): Promise<{ rows: WorkflowRow[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      q<WorkflowRow[]>`select * from workflows where project_id = ${projectId} order by created_at desc, id desc limit ${limit} offset ${offset}`,
      q<{ n: number }[]>`select count(*)::int as n from workflows where project_id = ${projectId}`,
    ]);
    return { rows, total: count?.n ?? 0 };
  },

  async graphs(q: Q, workflowIds: string[]): Promise<Map<string, Graph>> {
    const [steps, transitions] = await Promise.all([
      q<StepRow[]>`select id, workflow_id, type, name, config, position from steps where workflow_id = any(${workflowIds}::uuid[]) order by created_at, id`,
      q<TransitionRow[]>`select * from transitions where workflow_id = any(${workflowIds}::uuid[]) order by id`,
    ]);
    const out = new Map<string, Graph>(workflowIds.map((id) => [id, { steps: [], transitions: [] }]));
    for (const s of steps) out.get(s.workflow_id)?.steps.push(s);
    for (const t of transitions) out.get(t.workflow_id)?.transitions.push(t);
    return out;
  },

  /** `enabled_at`, `created_at` and `updated_at` are the database's: a new workflow is disabled. */
  async insert(q: Q, w: Omit<WorkflowRow, "enabled_at" | "created_at" | "updated_at">): Promise<void> {
    await q`insert into workflows (id, project_id, name, description, enabled, allow_reentry, trigger_type, trigger_config,
      trigger_event, enabled_at, created_at, updated_at)
      values (${w.id}, ${w.project_id}, ${w.name}, ${w.description}, ${w.enabled}, ${w.allow_reentry}, ${w.trigger_type},
      ${json(w.trigger_config)}::jsonb, ${w.trigger_event}, null, now(), now())`;
  },

  async update(q: Q, w: WorkflowRow): Promise<void> {
    await q`update workflows set name = ${w.name}, description = ${w.description}, enabled = ${w.enabled},
      allow_reentry = ${w.allow_reentry}, trigger_type = ${w.trigger_type}, trigger_config = ${json(w.trigger_config)}::jsonb,
      trigger_event = ${w.trigger_event},
      enabled_at = case when ${w.enabled} and not enabled then now() when ${w.enabled} then enabled_at end,
      updated_at = now() where id = ${w.id}`;
  },

  /** The TRIGGER step's config mirrors the workflow's trigger config. */
  async setTriggerStepConfig(q: Q, workflowId: string, config: WorkflowRow["trigger_config"]): Promise<void> {
    await q`update steps set config = ${json(config)}::jsonb where workflow_id = ${workflowId} and type = 'TRIGGER'`;
  },

  async touch(q: Q, id: string): Promise<void> {
    await q`update workflows set updated_at = now() where id = ${id}`;
  },

  async delete(q: Q, id: string): Promise<void> {
    await q`delete from workflows where id = ${id}`;
  },

  async step(q: Q, projectId: string, workflowId: string, stepId: string): Promise<StepRow | null> {
    const [row] = await q<StepRow[]>`select s.id, s.workflow_id, s.type, s.name, s.config, s.position
      from steps s join workflows w on w.id = s.workflow_id
      where w.project_id = ${projectId} and s.workflow_id = ${workflowId} and s.id = ${stepId}`;
    return row ?? null;
  },

  /** True while a SEND_EMAIL step of any of the project's workflows names the template. */
  async templateInUse(q: Q, projectId: string, templateId: string): Promise<boolean> {
    const rows = await q`
      select 1 from steps s join workflows w on w.id = s.workflow_id
      where w.project_id = ${projectId} and s.type = 'SEND_EMAIL' and s.config->>'templateId' = ${templateId}
      limit 1`;
    return rows.length > 0;
  },

  async insertStep(q: Q, s: StepRow): Promise<void> {
    await q`insert into steps (id, workflow_id, type, name, config, position)
      values (${s.id}, ${s.workflow_id}, ${s.type}, ${s.name}, ${json(s.config)}::jsonb, ${json(s.position)}::jsonb)`;
  },

  async updateStep(q: Q, s: StepRow): Promise<void> {
    await q`update steps set name = ${s.name}, config = ${json(s.config)}::jsonb, position = ${json(s.position)}::jsonb where id = ${s.id}`;
  },

  async deleteStep(q: Q, id: string): Promise<void> {
    await q`delete from steps where id = ${id}`;
  },

  async insertTransition(q: Q, t: TransitionRow): Promise<void> {
    await q`insert into transitions (id, workflow_id, from_step_id, to_step_id, branch, wait_outcome)
      values (${t.id}, ${t.workflow_id}, ${t.from_step_id}, ${t.to_step_id}, ${t.branch}, ${t.wait_outcome})`;
  },

  /** Deletes the workflow's transition; false when it has none of that id. */
  async deleteTransition(q: Q, workflowId: string, id: string): Promise<boolean> {
    const rows = await q`delete from transitions where workflow_id = ${workflowId} and id = ${id} returning id`;
    return rows.length > 0;
  },

  async hasActiveExecutions(q: Q, workflowId: string): Promise<boolean> {
    const rows = await q`select 1 from executions where workflow_id = ${workflowId} and status in ('RUNNING', 'WAITING') limit 1`;
    return rows.length > 0;
  },

  async hasExecutions(q: Q, workflowId: string): Promise<boolean> {
    const rows = await q`select 1 from executions where workflow_id = ${workflowId} limit 1`;
    return rows.length > 0;
  },

  /** The enabled EVENT workflows listening to any of these (project, event name) pairs. */
  async listeningToAny(q: Q, keys: Array<{ projectId: string; name: string }>): Promise<Array<{ id: string; project_id: string; trigger_event: string }>> {
    if (keys.length === 0) return [];
    const input = json(keys.map((k) => ({ project_id: k.projectId, name: k.name })));
    return q<Array<{ id: string; project_id: string; trigger_event: string }>>`
      select w.id, w.project_id, w.trigger_event from workflows w
      where w.enabled and w.trigger_type = 'EVENT'
        and (w.project_id, w.trigger_event) in (select distinct project_id, name from jsonb_to_recordset(${input}::jsonb) as t(project_id uuid, name text))`;
  },

  async scheduled(q: Q): Promise<WorkflowRow[]> {
    return q<WorkflowRow[]>`select * from workflows where enabled and trigger_type = 'SCHEDULE'`;
  },

  async claimTick(q: Q, workflowId: string, tickAt: Date): Promise<boolean> {
    const rows = await q`insert into schedule_ticks (workflow_id, tick_at) values (${workflowId}, ${tickAt.toISOString()})
      on conflict do nothing returning 1`;
    return rows.length > 0;
  },
});
