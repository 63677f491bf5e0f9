import { fileURLToPath } from "node:url";
import { main, startTelemetry } from "@mailroom/kit";
import { buildApp } from "./app.js";
import { ContactsEnv } from "./config.js";

startTelemetry("contacts");
main({
  name: "contacts",
  env: ContactsEnv,
  migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)),
  build: buildApp,
});
