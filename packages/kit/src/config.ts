import { z } from "zod";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { ServiceName } from "@mailroom/contracts";
import { SERVICES } from "@mailroom/contracts";

const Port = z.coerce.number().int().min(0).max(65535);

/** What every service reads (decisions.md §1). A service adds its own fields with `extra`. */
export const BaseEnv = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222"),
  NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, "letters, digits, _ and - only (it names streams)")
    .default("mailroom"),
  /** Replicas of the JetStream streams Mailroom creates (3 on a production cluster). */
  NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  REDIS_URL: z.string().min(1).default("redis://127.0.0.1:6379"),
  OPS_PORT: Port.optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Bound on every request-reply call; past it the caller gets SERVICE_UNAVAILABLE. */
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(5000),
  /**
   * Requests of one operation made in the same event-loop turn travel as one NATS message
   * (rpc-batch.ts). On by default; "false" sends each on its own (for comparing, or to rule it out).
   */
  RPC_COALESCE: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(9000),
});
export type BaseEnv = z.infer<typeof BaseEnv>;

const DbEnv = z.object({
  /** Connections per service replica (PostgreSQL's own limit is shared by every replica). */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_URL: z.url().default("postgres://postgres@127.0.0.1:5432/postgres"),
  DB_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,40}$/, "lower-case letters, digits and _ (it names databases)")
    .default("mailroom"),
});

export type ServiceConfig<E extends z.ZodRawShape = {}> = BaseEnv & {
  service: ServiceName;
  opsPort: number;
  /** Full URL of this service's own database (`<DB_PREFIX>_<service>`), when it has one. */
  databaseUrl: string | undefined;
} & z.infer<z.ZodObject<E>>;

/**
 * Parses process.env once at start-up. A missing or bad variable is fatal and the message names it,
 * so a misconfigured pod fails at once instead of half-working.
 */
export function loadConfig<E extends z.ZodRawShape = {}>(
  service: ServiceName,
  extra?: z.ZodObject<E>,
  env: NodeJS.ProcessEnv = process.env,
): ServiceConfig<E> {
  const hasDb = SERVICES[service].database;
  let schema: z.ZodObject = BaseEnv;
  if (hasDb) schema = schema.extend(DbEnv.shape);
  if (extra) schema = schema.extend(extra.shape);
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration for ${service}:\n${lines.join("\n")}`);
  }
  const values = parsed.data as Record<string, unknown>;
  const overrideName = `${service.toUpperCase()}_DATABASE_URL`;
  const databaseUrl = hasDb
    ? (env[overrideName] ?? serviceDatabaseUrl(values.DATABASE_URL as string, values.DB_PREFIX as string, service))
    : undefined;
  const opsPort = (values.OPS_PORT as number | undefined) ?? SERVICES[service].opsPort;
  return { ...values, service, opsPort, databaseUrl } as unknown as ServiceConfig<E>;
}

export class ConfigError extends Error {}

export function serviceDatabaseUrl(databaseUrl: string, prefix: string, service: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${prefix}_${service}`;
  return url.toString();
}

/**
 * MAILROOM_SECRET signs public links. Production must set it (a generated one would differ per pod);
 * in development it is generated once and kept in the data dir so links survive restarts.
 */
export function resolveSecret(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.MAILROOM_SECRET;
  if (given && given.length >= 16) return given;
  if (given) throw new ConfigError("MAILROOM_SECRET must be at least 16 characters");
  if (env.NODE_ENV === "production") throw new ConfigError("MAILROOM_SECRET is required in production");
  const dir = env.MAILROOM_DATA_DIR ?? ".mailroom";
  const file = join(dir, "secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
