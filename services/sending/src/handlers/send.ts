import { sendRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Ctx } from "../usecases/context.js";
import { executeSend, planSend } from "../usecases/send.js";
import { routeOf } from "./route.js";

export function registerSend(server: RpcServer, ctx: Ctx): void {
  server.route(routeOf(sendRoutes, "sending.send"), async ({ projectId, body }) => {
    const plan = await planSend(ctx, projectId, body);
    return { status: 200, body: { success: true, data: await executeSend(ctx, projectId, body, plan) } };
  });
}
