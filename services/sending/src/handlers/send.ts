import { routeOf, sendRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { SendEmails } from "../usecases/send.js";

export function registerSend(server: RpcServer, sends: SendEmails): void {
  server.route(routeOf(sendRoutes, "sending.send"), async ({ projectId, body, meta }) => ({
    status: 200,
    body: { success: true, data: await sends.send(projectId, body, meta.idempotencyId) },
  }));
}
