import { AppError, type CreateTemplateRequest, sendingRpc, type Template, TemplateInUseRpcReply, type TemplateType, type UpdateTemplateRequest } from "@mailroom/contracts";
import { isId, newId, type RpcClient, type Sql } from "@mailroom/kit";
import { templatesRepo } from "../db/templates-repo.js";
import { assertRendersInBounds, parseTemplate } from "../domain/render.js";
import type { VerifiedDomains } from "./lookups.js";

/** A project's templates. Liquid syntax, the render bounds and the template's own sender are checked when it is saved, not when it is used. */
export class Templates {
  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly domains: VerifiedDomains,
  ) {}

  list(projectId: string, o: { page: number; limit: number; type?: TemplateType; search?: string }) {
    return templatesRepo.list(this.sql, projectId, o);
  }

  get(projectId: string, id: string): Promise<Template | null> {
    return isId(id) ? templatesRepo.get(this.sql, projectId, id) : Promise.resolve(null);
  }

  async create(projectId: string, t: CreateTemplateRequest): Promise<Template> {
    await this.check(projectId, t);
    return templatesRepo.create(this.sql, projectId, newId(), t);
  }

  /** Null when the project has no such template. */
  async update(projectId: string, id: string, patch: UpdateTemplateRequest): Promise<Template | null> {
    if (!isId(id)) return null;
    await this.check(projectId, patch);
    return templatesRepo.update(this.sql, projectId, id, patch);
  }

  /** False when the project has no such template; 409 INVALID_STATE while a workflow step uses it. */
  async delete(projectId: string, id: string): Promise<boolean> {
    if (!(await this.get(projectId, id))) return false;
    if (await this.inUse(projectId, id)) throw new AppError("INVALID_STATE", "A workflow step uses this template");
    await templatesRepo.delete(this.sql, projectId, id);
    return true;
  }

  private async check(projectId: string, t: { subject?: string; body?: string; from?: string | null }): Promise<void> {
    await assertRendersInBounds(parseTemplate({ subject: t.subject ?? "", body: t.body ?? "" }));
    if (t.from) await this.domains.assertSender(projectId, t.from);
  }

  /**
   * Whether a workflow step uses the template: asked of the workflows service, which answers
   * `workflows.templateInUse`. No responder (not deployed yet) means not used.
   */
  private async inUse(projectId: string, templateId: string): Promise<boolean> {
    const reply = await this.rpc.send(sendingRpc.templateInUse.operation, { projectId, templateId }, 3000);
    if (reply.ok) return TemplateInUseRpcReply.parse(reply.result).inUse;
    if (reply.error.error === "SERVICE_UNAVAILABLE" && /not running/i.test(reply.error.message)) return false;
    throw AppError.fromWire(reply.error);
  }
}
