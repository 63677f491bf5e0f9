/**
 * The operator's writes to the gateway's tables, and its override of a sending domain, as
 * `@mailroom/gateway/operator` (package.json "exports"; nothing else of the gateway is exported).
 * `mailroom projects create`, `users create` and `domains verify` run these (cli.ts), and so does the
 * test kit, in-process: spawning the CLI for every test's project or sender domain started node,
 * imported the gateway and connected to PostgreSQL or NATS each time, about a second of a 2-core
 * machine per call.
 */
import { sendingRpc, wireNames } from "@mailroom/contracts";
import { Blobs, RpcClient, connectNats, createLogger, loadConfig, openDatabase, type Sql } from "@mailroom/kit";

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

/** Runs `call` with an RPC client of the installation that `env` names (the service it asks must be running). */
export async function withOperatorRpc<T>(call: (rpc: RpcClient) => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const config = loadConfig("gateway", undefined, env);
  const nc = await connectNats(config, "mailroom-cli", createLogger("cli", "silent"));
  try {
    const names = wireNames(config.NATS_PREFIX);
    return await call(new RpcClient(nc, names, new Blobs(nc, names.buckets.blobs), config.RPC_TIMEOUT_MS));
  } finally {
    await nc.drain().catch(() => undefined);
  }
}

/**
 * `mailroom domains verify`: the operator's override for a domain verified by other means, and how
 * `npm start` gives the demo project a sender domain on a machine with no public DNS. Domains belong
 * to the sending service, so it is asked over NATS (it must be running).
 */
export function forceVerifyDomain(projectId: string, domain: string, env: NodeJS.ProcessEnv = process.env) {
  return withOperatorRpc((rpc) => rpc.call(sendingRpc.forceVerifyDomain, { projectId, domain }), env);
}
