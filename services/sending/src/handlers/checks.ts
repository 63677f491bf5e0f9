import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { MessageChecks } from "../usecases/message-checks.js";

/** Pre-send checks of a message (decisions.md §18), asked by the campaigns service. */
export function registerChecks(server: RpcServer, checks: MessageChecks): void {
  server.rpc(sendingRpc.messageChecks, async (req) => ({ checks: await checks.check(req) }));
}
