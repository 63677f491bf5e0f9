import { feedbackRoutes, routeOf } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { SnsClient } from "../infra/sns-certs.js";
import type { Ctx } from "../usecases/context.js";
import { handleSesWebhook } from "../usecases/ses.js";

/** `topics`: SES_SNS_TOPIC_ARNS; empty, the route answers 404. */
export function registerSes(server: RpcServer, ctx: Ctx, sns: SnsClient, topics: ReadonlySet<string>): void {
  server.route(routeOf(feedbackRoutes, "sending.feedback.ses"), async ({ body }) => {
    await handleSesWebhook(ctx, sns, topics, body);
    return { status: 200, body: { success: true } };
  });
}
