import { fileURLToPath } from "node:url";
import { main, startTelemetry } from "@mailroom/kit";
import { buildApp } from "./app.js";
import { WorkflowsEnv } from "./config.js";

startTelemetry("workflows");
main({
  name: "workflows",
  env: WorkflowsEnv,
  migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)),
  build: buildApp,
});
