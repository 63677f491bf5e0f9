import { feedbackRoutes, routeOf } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { SesFeedback } from "../usecases/ses.js";

export function registerSes(server: RpcServer, ses: SesFeedback): void {
  server.route(routeOf(feedbackRoutes, "sending.feedback.ses"), async ({ body }) => {
    await ses.handle(body);
    return { status: 200, body: { success: true } };
  });
}
