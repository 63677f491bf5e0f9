import { routeOf, sendRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { SendEmails } from "../usecases/send.js";

export function registerSend(server: RpcServer, sends: SendEmails): void {
  server.route(routeOf(sendRoutes, "sending.send"), async ({ projectId, body, meta }) => {
    const { result, replayed } = await sends.send(projectId, body, meta.idempotencyId);
    // as the gateway marks a replay it answers itself (decisions.md §3)
    return { status: 200, body: { success: true, data: result }, ...(replayed ? { headers: { "Idempotent-Replayed": "true" } } : {}) };
  });
}
