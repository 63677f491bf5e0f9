import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import { suppressionsRepo } from "../db/suppressions-repo.js";
import type { Ctx } from "../usecases/context.js";

/**
 * The operator's lift (`mailroom suppressions lift`, decisions.md §15): the only way a complaint is
 * taken back. The contact's subscription stays as it is; the recipient can subscribe again after.
 */
export function registerSuppressions(server: RpcServer, ctx: Ctx): void {
  server.rpc(sendingRpc.liftSuppressions, async ({ projectId, email }) => {
    const lifted = await suppressionsRepo.liftAll(ctx.sql, projectId, email);
    ctx.log.info({ projectId, lifted }, "suppressions lifted by the operator");
    return { lifted };
  });
}
