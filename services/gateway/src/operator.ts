/**
 * The operator's writes to the gateway's tables, as `@mailroom/gateway/operator` (package.json
 * "exports"; nothing else of the gateway is exported). `mailroom projects create` and `mailroom users
 * create` run these (cli.ts), and so does the test kit, in-process over a connection each test
 * worker keeps: spawning the CLI for every test's project started node, imported the gateway and
 * connected to PostgreSQL each time, about a second of a 2-core machine per project.
 */
import { loadConfig, openDatabase, type Sql } from "@mailroom/kit";

export { createProject, projectName, type CreatedProject } from "./usecases/create-project.js";
export { createUser, type CreatedUser } from "./usecases/create-user.js";

/** The gateway's database URL from the services' environment (DATABASE_URL and DB_PREFIX, or GATEWAY_DATABASE_URL). */
export function gatewayDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  // the gateway always has a database (SERVICES.gateway.database), so the config names one
  return loadConfig("gateway", undefined, env).databaseUrl!;
}

/** A connection pool to the gateway's database; the caller ends it (`sql.end()`). */
export function openGatewayDatabase(env: NodeJS.ProcessEnv = process.env, opts: { max?: number } = {}): Sql {
  return openDatabase(gatewayDatabaseUrl(env), opts);
}
