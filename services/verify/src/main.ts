import { main, startTelemetry } from "@mailroom/kit";
import { VerifyEnv, buildApp } from "./app.js";

startTelemetry("verify");
main({ name: "verify", env: VerifyEnv, redis: "optional", build: buildApp });
