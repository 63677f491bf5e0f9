import type { RouteDef, RpcDef } from "./route.js";
import { verifyRoutes, verifyRpc } from "./verify/index.js";
import { contactsRoutes, contactsRpc } from "./contacts/index.js";
import { emailRoutes, feedbackRoutes, linkRoutes, sendRoutes, sendingRpc, settingsRoutes, statsRoutes, templateRoutes } from "./sending/index.js";
import { campaignRoutes } from "./campaigns/index.js";
import { workflowsRoutes } from "./workflows/index.js";
import { webhookRoutes } from "./webhooks/index.js";

/** Every public HTTP route of Mailroom, in the order the OpenAPI document lists them. */
export const ROUTES: readonly RouteDef[] = [
  ...sendRoutes,
  ...contactsRoutes,
  ...verifyRoutes,
  ...templateRoutes,
  ...emailRoutes,
  ...settingsRoutes,
  ...statsRoutes,
  ...campaignRoutes,
  ...workflowsRoutes,
  ...webhookRoutes,
  ...linkRoutes,
  ...feedbackRoutes,
];

/** Every internal RPC. HTTP operations and RPC operations share one subject space, so their
 * operation names must never collide (the contracts test holds that). */
export const RPCS: readonly RpcDef[] = [...Object.values(contactsRpc), ...Object.values(sendingRpc), ...Object.values(verifyRpc)];
