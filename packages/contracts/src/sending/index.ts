import { sendRoutes } from "./send.js";
import { templateRoutes } from "./templates.js";
import { emailRoutes } from "./emails.js";
import { feedbackRoutes, linkRoutes } from "./links.js";
import { settingsRoutes } from "./settings.js";
import { statsRoutes } from "./stats.js";

export * from "./send.js";
export * from "./templates.js";
export * from "./emails.js";
export * from "./links.js";
export * from "./rpc.js";
export * from "./settings.js";
export * from "./stats.js";
export * from "./checks.js";

export const sendingRoutes = [...sendRoutes, ...templateRoutes, ...emailRoutes, ...settingsRoutes, ...statsRoutes, ...linkRoutes, ...feedbackRoutes];
