import { fileURLToPath } from "node:url";
import { main, startTelemetry } from "@mailroom/kit";
import { buildApp } from "./app.js";
import { CampaignsEnv } from "./config.js";

startTelemetry("campaigns");
main({
  name: "campaigns",
  env: CampaignsEnv,
  migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)),
  build: buildApp,
});
