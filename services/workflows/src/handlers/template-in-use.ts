import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Editor } from "../usecases/editor.js";

/** sending.templateInUse, asked by the sending service before it deletes a template (Editor.templateInUse). */
export function registerTemplateInUse(server: RpcServer, editor: Editor): void {
  server.rpc(sendingRpc.templateInUse, async ({ projectId, templateId }) => ({ inUse: await editor.templateInUse(projectId, templateId) }));
}
