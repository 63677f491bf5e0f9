import { routeOf, sendingRpc, settingsRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { Confirmations } from "../usecases/confirmation.js";
import type { ProjectSettings } from "../usecases/lookups.js";

export function registerSettings(server: RpcServer, settings: ProjectSettings, confirmations: Confirmations): void {
  server
    .route(routeOf(settingsRoutes, "sending.settings.get"), async ({ projectId }) => ({ status: 200, body: await settings.get(projectId) }))
    .route(routeOf(settingsRoutes, "sending.settings.update"), async ({ projectId, body }) => ({ status: 200, body: await settings.update(projectId, body) }))
    // asked by the contacts service when a public key subscribes (its answer is cached there briefly)
    .rpc(sendingRpc.doubleOptIn, async ({ projectId }) => (await settings.get(projectId)).doubleOptIn)
    .rpc(sendingRpc.confirmationEmail, (req) => confirmations.send(req));
}
