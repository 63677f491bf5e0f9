import { sendingRpc } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { OwnEmails } from "../usecases/system-email.js";

/** The gateway's invitations (decisions.md §13), from the installation's SYSTEM_FROM address. */
export function registerSystemEmail(server: RpcServer, own: OwnEmails): void {
  server.rpc(sendingRpc.systemEmail, (req) => own.system(req));
}
