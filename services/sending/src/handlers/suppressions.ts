import { sendingRpc } from "@mailroom/contracts";
import type { Logger, RpcServer } from "@mailroom/kit";
import type { SuppressionChecks } from "../usecases/lookups.js";

/**
 * The operator's lift (`mailroom suppressions lift`, decisions.md §15): the only way a complaint is
 * taken back. The contact's subscription stays as it is; the recipient can subscribe again after.
 */
export function registerSuppressions(server: RpcServer, suppressions: SuppressionChecks, log: Logger): void {
  server.rpc(sendingRpc.liftSuppressions, async ({ projectId, email }) => {
    const lifted = await suppressions.liftByOperator(projectId, email);
    log.info({ projectId, lifted }, "suppressions lifted by the operator");
    return { lifted };
  });
}
