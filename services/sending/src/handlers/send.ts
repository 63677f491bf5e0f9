import { routeOf, sendRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";
import { executeSend, planSend, sentBefore } from "../usecases/send.js";

export function registerSend(server: RpcServer, ctx: Ctx): void {
  server.route(routeOf(sendRoutes, "sending.send"), async ({ projectId, body, meta }) => {
    const ok = (data: unknown) => ({ status: 200, body: { success: true, data } });
    // A retry of a request whose first attempt queued its emails (the gateway timed out, or died,
    // before it could store the answer) gets that attempt's answer: the send happens once.
    const id = meta.idempotencyId;
    const first = id ? await sentBefore(ctx, projectId, id, Array.isArray(body.to) ? body.to.length : 1) : null;
    if (first) return ok(first);
    const plan = await planSend(ctx, projectId, body);
    return ok(await executeSend(ctx, projectId, body, plan, id));
  });
}
