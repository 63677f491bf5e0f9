import { workflowRoutes } from "./http.js";
import { executionRoutes } from "./executions.js";

export * from "./steps.js";
export * from "./records.js";
export * from "./http.js";
export * from "./executions.js";
export * from "./graph.js";

export const workflowsRoutes = [...workflowRoutes, ...executionRoutes];
