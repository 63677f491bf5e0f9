import {
  AppError,
  contactsRpc,
  type ExecutionDetail,
  type ExecutionList,
  type ListExecutionsQuery,
  type StartExecutionRequest,
} from "@mailroom/contracts";
import { isId, type RpcClient, type Sql } from "@mailroom/kit";
import { executionsRepo } from "../db/executions-repo.js";
import { toExecution, toStepRun } from "../db/rows.js";
import { workflowsRepo } from "../db/workflows-repo.js";
import type { Starter } from "../engine/starter.js";
import { cursorOf, idOfCursor } from "./id-cursor.js";

/** Manual starts, listings and cancellation of a workflow's executions. */
export class Executions {
  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly starter: Starter,
  ) {}

  private async workflow(projectId: string, id: string) {
    const w = isId(id) ? await workflowsRepo.get(this.sql, projectId, id) : null;
    if (!w) throw AppError.notFound("Workflow");
    return w;
  }

  /**
   * With an Idempotency-Key, the gateway's claim id (a UUIDv7, the same on every attempt) is the
   * execution's id: an attempt after one whose answer was lost finds the first's execution and
   * answers with it, and a twin running beside it loses at the primary key and does the same.
   */
  async start(projectId: string, workflowId: string, req: StartExecutionRequest, idempotencyId?: string) {
    await this.workflow(projectId, workflowId);
    const startedBefore = async () => (idempotencyId ? await executionsRepo.get(this.sql, projectId, workflowId, idempotencyId) : null);
    const before = await startedBefore();
    if (before) return toExecution(before);
    const { contact } = await this.rpc.call(
      contactsRpc.get,
      req.contactId !== undefined ? { projectId, id: req.contactId } : { projectId, email: req.email! },
    );
    if (!contact) throw AppError.notFound("Contact");
    let disabled = false;
    const started = await this.starter.start({
      projectId,
      workflowId,
      contactIds: [contact.id],
      context: { event: {}, ...req.context },
      triggerKey: null,
      ...(idempotencyId ? { ids: [idempotencyId] } : {}),
      accepts: (w) => {
        disabled = !w.enabled;
        return w.enabled;
      },
    });
    if (disabled) throw new AppError("INVALID_STATE", "The workflow is disabled; enable it first", { reason: "workflow_disabled" });
    const [execution] = started ?? [];
    if (!execution) {
      const twin = await startedBefore();
      if (twin) return toExecution(twin);
      throw new AppError("INVALID_STATE", "The contact already entered this workflow (allowReentry is false) or has an active execution of it", {
        reason: "not_entered",
      });
    }
    return toExecution(execution);
  }

  async list(projectId: string, workflowId: string, query: ListExecutionsQuery): Promise<ExecutionList> {
    await this.workflow(projectId, workflowId);
    const rows = await executionsRepo.list(this.sql, workflowId, query.status, query.limit + 1, query.cursor ? idOfCursor(query.cursor) : undefined);
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    return { data: page.map(toExecution), cursor: hasMore ? cursorOf(page[page.length - 1]!.id) : null, hasMore };
  }

  async get(projectId: string, workflowId: string, id: string): Promise<ExecutionDetail> {
    const row = isId(workflowId) && isId(id) ? await executionsRepo.get(this.sql, projectId, workflowId, id) : null;
    if (!row) throw AppError.notFound("Execution");
    const runs = await executionsRepo.stepRuns(this.sql, id);
    return { ...toExecution(row), steps: runs.map(toStepRun) };
  }

  async cancel(projectId: string, workflowId: string, id: string) {
    const current = isId(workflowId) && isId(id) ? await executionsRepo.get(this.sql, projectId, workflowId, id) : null;
    if (!current) throw AppError.notFound("Execution");
    const [row] = await this.sql.begin((tx) => executionsRepo.cancel(tx, workflowId, id));
    if (!row) throw new AppError("INVALID_STATE", `The execution is ${current.status}; only RUNNING or WAITING executions can be cancelled`);
    return toExecution(row);
  }

  async cancelAll(projectId: string, workflowId: string): Promise<{ cancelled: number }> {
    await this.workflow(projectId, workflowId);
    const rows = await this.sql.begin((tx) => executionsRepo.cancel(tx, workflowId));
    return { cancelled: rows.length };
  }
}
