#!/usr/bin/env node
/**
 * `mailroom`: the operator CLI (decisions.md §1). Run from the repo root as `npx mailroom …` with
 * the same environment as the services. It owns no logic of its own: projects and keys are the
 * gateway's tables, migrations are each service's committed SQL, domains and suppressions the
 * sending service's (asked over NATS).
 */
import { parseArgs } from "node:util";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { EmailAddress, SERVICE_NAMES, SERVICES, sendingRpc, wireNames } from "@mailroom/contracts";
import { connectNats, createLogger, isId, loadConfig, migrate, serviceDatabaseUrl, type Sql } from "@mailroom/kit";
import { keysRepo } from "./db/keys-repo.js";
import { createProject, createUser, forceVerifyDomain, gatewayDatabaseUrl, openGatewayDatabase, projectName, withOperatorRpc } from "./operator.js";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const USAGE = `usage:
  mailroom help | --help | -h
  mailroom projects create --name NAME [--json]
  mailroom keys create --project ID --kind secret|public [--rate-limit N] [--json]
  mailroom keys list --project ID [--json]
  mailroom keys revoke KEY_ID
  mailroom users create --email EMAIL --project ID --role owner|editor|viewer [--password P] [--name N] [--json]
  mailroom domains verify --project ID --domain DOMAIN   (operator override: mark verified without DNS)
  mailroom suppressions lift --project ID --email EMAIL   (the only way a complaint is lifted)
  mailroom migrate`;

class UsageError extends Error {}

function migrationsFolder(service: string): string {
  return join(repoRoot, "services", service, "drizzle");
}

async function migrateAll(): Promise<string[]> {
  const done: string[] = [];
  for (const name of SERVICE_NAMES) {
    if (!SERVICES[name].database) continue;
    const folder = migrationsFolder(name);
    if (!existsSync(join(folder, "meta", "_journal.json"))) continue;
    const env = process.env;
    const url =
      env[`${name.toUpperCase()}_DATABASE_URL`] ??
      serviceDatabaseUrl(env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", env.DB_PREFIX ?? "mailroom", name);
    await migrate(url, name, folder);
    done.push(name);
  }
  return done;
}

async function withKeys<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  await migrate(gatewayDatabaseUrl(), "gateway", migrationsFolder("gateway"));
  const sql = openGatewayDatabase(process.env, { max: 2 });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Tells every gateway replica to forget the key now; the 1 s cache bound covers a missed message. */
async function broadcastRevocation(hash: string): Promise<void> {
  const config = loadConfig("gateway");
  const log = createLogger("cli", "silent");
  const nc = await connectNats(config, "mailroom-cli", log).catch(() => null);
  if (!nc) return;
  nc.publish(wireNames(config.NATS_PREFIX).broadcast.keyRevoked, hash);
  await nc.drain().catch(() => undefined);
}

/**
 * Suppressions belong to the sending service, asked over NATS as for domains. A complaint is lifted here only (decisions.md
 * §15): no API key and no link in an email can, since a tenant holds both.
 */
async function liftSuppressions(projectId: string, email: string): Promise<{ lifted: string[] }> {
  if (!isId(projectId)) throw new UsageError("--project must be a project id");
  const address = EmailAddress.safeParse(email);
  if (!address.success) throw new UsageError("--email must be an email address");
  return withOperatorRpc((rpc) => rpc.call(sendingRpc.liftSuppressions, { projectId, email: address.data }));
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      project: { type: "string" },
      domain: { type: "string" },
      kind: { type: "string" },
      "rate-limit": { type: "string" },
      email: { type: "string" },
      role: { type: "string" },
      password: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  const [group, action, arg] = positionals;
  const json = values.json ?? false;
  // Asked for, usage is the answer (stdout, exit 0); a missing or unknown command is a mistake (stderr, exit 2).
  if (values.help || group === "help") return print(false, null, USAGE);
  if (!group) throw new UsageError(USAGE);

  if (group === "migrate") {
    const done = await migrateAll();
    return print(json, { migrated: done }, `migrated: ${done.join(", ")}`);
  }
  if (group === "projects" && action === "create") {
    // a missing name is refused before the database is reached, as every usage error is
    const name = projectName(values.name);
    if (name instanceof Error) throw new UsageError(name.message);
    const p = await withKeys((sql) => createProject(sql, name));
    if (p instanceof Error) throw new UsageError(p.message);
    return print(json, p, `project ${p.id} (${p.name})\n  secret key: ${p.secretKey}\n  public key: ${p.publicKey}`);
  }
  if (group === "keys" && action === "create") {
    const kind = values.kind;
    if (kind !== "secret" && kind !== "public") throw new UsageError("--kind must be secret or public");
    if (!values.project) throw new UsageError("--project is required");
    const rate = values["rate-limit"] ? Number(values["rate-limit"]) : undefined;
    if (rate !== undefined && !(Number.isInteger(rate) && rate > 0)) throw new UsageError("--rate-limit must be a positive integer");
    const created = await withKeys(async (sql) => {
      if (!(await keysRepo.projectExists(sql, values.project!).catch(() => false))) throw new UsageError(`no project ${values.project}`);
      return keysRepo.createKey(sql, values.project!, kind, rate);
    });
    return print(json, created, `${created.kind} key ${created.id}: ${created.key}`);
  }
  if (group === "keys" && action === "list") {
    if (!values.project) throw new UsageError("--project is required");
    const keys = await withKeys((sql) => keysRepo.listKeys(sql, values.project!).catch(() => []));
    return print(json, keys, keys.map((k) => `${k.id} ${k.kind} ${k.prefix} ${k.revokedAt ? "revoked" : "active"}`).join("\n"));
  }
  if (group === "keys" && action === "revoke") {
    if (!arg) throw new UsageError("usage: mailroom keys revoke KEY_ID");
    const hash = await withKeys((sql) => keysRepo.revoke(sql, arg).catch(() => null));
    if (!hash) throw new UsageError(`no active key ${arg}`);
    await broadcastRevocation(hash);
    return print(json, { revoked: arg }, `revoked ${arg}`);
  }
  if (group === "users" && action === "create") {
    const made = await withKeys((sql) => createUser(sql, { email: values.email, project: values.project, role: values.role, password: values.password, name: values.name }));
    if (made instanceof Error) throw new UsageError(made.message);
    const shown = made.password ? `\n  password: ${made.password}` : "";
    return print(json, made, `user ${made.user.id} (${made.user.email}) is ${made.role} of project ${made.projectId}${shown}`);
  }
  if (group === "domains" && action === "verify") {
    if (!values.project || !values.domain) throw new UsageError("--project and --domain are required");
    const result = await forceVerifyDomain(values.project, values.domain);
    return print(json, result, `domain ${values.domain} verified for project ${values.project}`);
  }
  if (group === "suppressions" && action === "lift") {
    if (!values.project || !values.email) throw new UsageError("--project and --email are required");
    const result = await liftSuppressions(values.project, values.email);
    const what = result.lifted.length ? `lifted ${result.lifted.join(" and ")}` : "nothing to lift";
    return print(json, result, `${values.email} in project ${values.project}: ${what}`);
  }
  throw new UsageError(USAGE);
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`${err instanceof UsageError ? err.message : `mailroom: ${err.message}`}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
