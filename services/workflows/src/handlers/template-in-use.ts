import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer, Sql } from "@mailroom/kit";

/**
 * The sending service asks before deleting a template (409 INVALID_STATE while a SEND_EMAIL step of
 * any workflow of the project names it), so a workflow never reaches a step whose template is gone.
 */
export function registerTemplateInUse(server: RpcServer, sql: Sql): void {
  server.rpc(sendingRpc.templateInUse, async ({ projectId, templateId }) => {
    const rows = await sql`
      select 1 from steps s join workflows w on w.id = s.workflow_id
      where w.project_id = ${projectId} and s.type = 'SEND_EMAIL' and s.config->>'templateId' = ${templateId}
      limit 1`;
    return { inUse: rows.length > 0 };
  });
}
