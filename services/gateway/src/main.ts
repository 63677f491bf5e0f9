import { fileURLToPath } from "node:url";
import { main, startTelemetry } from "@mailroom/kit";
import { GatewayEnv } from "./config.js";
import { buildApp } from "./app.js";

startTelemetry("gateway");
main({
  name: "gateway",
  env: GatewayEnv,
  migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)),
  redis: "optional",
  build: buildApp,
});
