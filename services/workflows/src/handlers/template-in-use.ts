import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer, Sql } from "@mailroom/kit";
import { workflowsRepo } from "../db/workflows-repo.js";

/**
 * The sending service asks before deleting a template (409 INVALID_STATE while a SEND_EMAIL step of
 * any workflow of the project names it), so a workflow never reaches a step whose template is gone.
 */
export function registerTemplateInUse(server: RpcServer, sql: Sql): void {
  server.rpc(sendingRpc.templateInUse, async ({ projectId, templateId }) => {
    return { inUse: await workflowsRepo.templateInUse(sql, projectId, templateId) };
  });
}
