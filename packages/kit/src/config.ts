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
  /**
   * NATS credentials (decisions.md §12): a user and its password, or a `.creds` file (a JWT and its
   * NKey seed, for servers run in operator mode). Unset: no credentials, as on a laptop.
   */
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_CREDS: z.string().min(1).optional(),
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
  /**
   * How long a message handed to a replica that died (kill -9, a lost host) waits before the server
   * hands it to another: the ack wait of the service's consumers that set none of their own. A live
   * replica keeps each message it is handling alive every third of it, so a longer handler is not
   * affected; shorter means faster takeover for a few more keep-alives. On a NATS cluster keep it
   * several times a leader election, or keep-alives lost in one let messages time out (operations.md).
   */
  CONSUMER_ACK_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /**
   * Bytes the blob store (uploads waiting to be imported, large payloads in transit) holds in all;
   * past it a new upload gets 503 until older blobs are taken or expire. One value for every service.
   * JetStream reserves it from the server's storage when the bucket is made.
   */
  BLOBS_MAX_BYTES: z.coerce.number().int().min(1024 * 1024).default(2 * 1024 * 1024 * 1024),
  /**
   * Test only: a directory where a test sets one project's clock (clock.ts), so local-time delivery
   * and quiet hours can be tested at 08:59 in Tokyo whatever the time is. Never set in production.
   */
  TEST_CLOCK_DIR: z.string().min(1).optional(),
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
  const problems = [...natsCredentialProblems(values), ...(values.NODE_ENV === "production" ? productionProblems(env) : [])];
  if (problems.length) throw new ConfigError(`Invalid configuration for ${service}:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  const overrideName = `${service.toUpperCase()}_DATABASE_URL`;
  const databaseUrl = hasDb
    ? (env[overrideName] ?? serviceDatabaseUrl(values.DATABASE_URL as string, values.DB_PREFIX as string, service))
    : undefined;
  const opsPort = (values.OPS_PORT as number | undefined) ?? SERVICES[service].opsPort;
  return { ...values, service, opsPort, databaseUrl } as unknown as ServiceConfig<E>;
}

export class ConfigError extends Error {}

function natsCredentialProblems(values: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (Boolean(values.NATS_USER) !== Boolean(values.NATS_PASSWORD)) {
    problems.push("NATS_USER, NATS_PASSWORD: set both or neither");
  }
  if (values.NATS_CREDS && values.NATS_USER) problems.push("NATS_CREDS: set it or NATS_USER and NATS_PASSWORD, not both");
  return problems;
}

/** What production refuses to start with, whichever service it is. */
function productionProblems(env: NodeJS.ProcessEnv): string[] {
  const secret = productionSecretProblem(env.MAILROOM_SECRET);
  return secret ? [secret] : [];
}

/** Bytes of MAILROOM_SECRET production requires: an HMAC-SHA256 key as long as its output. */
export const MIN_PRODUCTION_SECRET_BYTES = 32;

/**
 * Values published in this repository (docker-compose's former default) or typical of examples: anyone
 * can read them, so links signed with them could be forged. Compared trimmed and lower-cased.
 */
const KNOWN_SECRETS = new Set(["compose-development-secret-do-not-use-in-production"]);
const PLACEHOLDER = /change-?me|replace-?me|do-?not-?use|placeholder|your[-_ ]?secret|example|insecure/i;
const GENERATE = "generate one with `openssl rand -base64 48`";

/**
 * Why a MAILROOM_SECRET is not fit for production, or null when it is. The message names the
 * variable and never repeats its value.
 */
export function productionSecretProblem(secret: string | undefined): string | null {
  if (!secret) return `MAILROOM_SECRET is required in production; ${GENERATE}`;
  const bytes = Buffer.byteLength(secret);
  if (bytes < MIN_PRODUCTION_SECRET_BYTES) {
    return `MAILROOM_SECRET must be at least ${MIN_PRODUCTION_SECRET_BYTES} bytes in production (it has ${bytes}); ${GENERATE}`;
  }
  // Fewer than 8 distinct characters: "xxxx…", "0000…", "abab…" – typed, not generated.
  if (KNOWN_SECRETS.has(secret.trim().toLowerCase()) || PLACEHOLDER.test(secret) || new Set(secret).size < 8) {
    return `MAILROOM_SECRET is a published example or a placeholder, not a secret; ${GENERATE}`;
  }
  return null;
}

export function serviceDatabaseUrl(databaseUrl: string, prefix: string, service: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${prefix}_${service}`;
  return url.toString();
}

/**
 * MAILROOM_SECRET signs public links. Production must set it (a generated one would differ per pod)
 * to a value fit for a key (productionSecretProblem); in development it is generated once and kept
 * in the data dir so links survive restarts.
 */
export function resolveSecret(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.MAILROOM_SECRET;
  if (env.NODE_ENV === "production") {
    const problem = productionSecretProblem(given);
    if (problem) throw new ConfigError(problem);
    return given!;
  }
  if (given && given.length >= 16) return given;
  if (given) throw new ConfigError("MAILROOM_SECRET must be at least 16 characters");
  const dir = env.MAILROOM_DATA_DIR ?? ".mailroom";
  const file = join(dir, "secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
