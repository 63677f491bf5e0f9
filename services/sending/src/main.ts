import { fileURLToPath } from "node:url";
import { main, startTelemetry } from "@mailroom/kit";
import { SendingEnv } from "./config.js";
import { buildApp } from "./app.js";

startTelemetry("sending");
main({
  name: "sending",
  env: SendingEnv,
  migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)),
  // Redis only paces delivery (SEND_RATE_PER_PROJECT): without it mail flows unthrottled.
  redis: "optional",
  build: buildApp,
});
