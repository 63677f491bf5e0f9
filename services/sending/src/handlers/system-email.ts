import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";
import { sendSystemEmail } from "../usecases/system-email.js";

/** The gateway's invitations (decisions.md §13), from the installation's SYSTEM_FROM address. */
export function registerSystemEmail(server: RpcServer, ctx: Ctx): void {
  server.rpc(sendingRpc.systemEmail, (req) => sendSystemEmail(ctx, req));
}
