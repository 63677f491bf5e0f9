import postgres, { type Sql } from "postgres";
import type { InferSelectModel, Table } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate as drizzleMigrate } from "drizzle-orm/postgres-js/migrator";
import { createHash } from "node:crypto";
import { SpanKind } from "@opentelemetry/api";
import { withSpan } from "./tracing.js";
import { withTimeout } from "./ops.js";

export type { Sql };
/** What a repository function runs its statements on: the pool, a transaction or a reserved connection. */
export type Q = postgres.ISql;

/** Creates the service's own database when missing. Two replicas racing to create it both succeed. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`database name "${name}" must be letters, digits and _`);
  url.pathname = "/postgres";
  const admin = postgres(url.toString(), { max: 1, onnotice: () => undefined, connect_timeout: 5 });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) {
      await admin.unsafe(`create database "${name}"`).catch((err: { code?: string }) => {
        // 42P04 duplicate_database, 23505 unique_violation: another replica created it first.
        if (err.code !== "42P04" && err.code !== "23505") throw err;
      });
    }
  } finally {
    await admin.end({ timeout: 1 });
  }
}

/**
 * The service's one postgres.js client, with the driver's own parsers: timestamps come back as
 * `Date`, jsonb as parsed JSON. drizzle is for the schema and migrations only (`migrate` builds its
 * own client), so nothing rewrites these parsers behind a repository's back. Rows are typed from the
 * schema with `Row<typeof table>`; jsonb parameters go as text (`${json(v)}::jsonb`).
 */
export function openDatabase(databaseUrl: string, opts: { max?: number; customPlans?: boolean } = {}): Sql {
  return postgres(databaseUrl, {
    max: opts.max ?? 10,
    onnotice: () => undefined,
    connect_timeout: 5,
    idle_timeout: 30,
    // Reconnect at most every 0.5 s (seconds here). The driver's default grows to 20 s after a few
    // failed attempts, and queries queued meanwhile wait for it: after a PostgreSQL restart of a few
    // seconds, requests hung for 10 s and more (packages/faults/test/postgres-restart.test.ts).
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    // Queries fail instead of hanging when PostgreSQL is gone; callers map that to 503.
    // `customPlans`: each execution of a prepared statement is planned for the table as it is now,
    // for a queue table that grows from empty to hundreds of thousands of rows under load.
    // PostgreSQL's generic plan is made once, while the table is a few pages, and kept until the
    // table is next analyzed: with autovacuum late (or off, as on the CI machine) a claim by id
    // became a sequential scan of the whole table, 30 ms a statement at 200,000 rows. Planning
    // costs each statement more, so only such a queue's own connections ask for it.
    connection: { statement_timeout: 30_000, ...(opts.customPlans ? { plan_cache_mode: "force_custom_plan" } : {}) },
    // json and jsonb parameters are JSON text, made by the caller (`json(v)`), so a repository
    // controls exactly what is stored; any other value is stringified as the driver would.
    types: { json: { to: 114, from: [114, 3802], serialize: jsonParameter, parse: (v: string) => JSON.parse(v) } },
  });
}

const jsonParameter = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/** A row as raw SQL returns it: the schema's column names (snake_case) and the driver's types. */
export type Row<T extends Table> = InferSelectModel<T, { dbColumnNames: true }>;

/** A timestamp as the API writes it (contracts' ISO 8601 with milliseconds). */
export const iso = (t: Date): string => t.toISOString();
export const isoOrNull = (t: Date | null): string | null => (t === null ? null : t.toISOString());
/** A jsonb parameter: sent as text and cast (`${json(v)}::jsonb`), whatever the value's shape. */
export const json = (v: unknown): string => JSON.stringify(v);

function lockKey(name: string): bigint {
  return createHash("sha256").update(name).digest().readBigInt64BE(0);
}

/**
 * Applies the committed SQL migrations (drizzle-kit output) under a PostgreSQL advisory lock, so N
 * replicas starting at once apply each migration exactly once; the others wait, then find nothing
 * to do. Each service keeps its own migrations table.
 */
export async function migrate(databaseUrl: string, service: string, migrationsFolder: string): Promise<void> {
  await ensureDatabase(databaseUrl);
  const sql = openDatabase(databaseUrl, { max: 2 });
  const db = drizzle(sql);
  const lock = await sql.reserve();
  const key = lockKey(`mailroom-migrate-${service}`);
  try {
    await lock`select pg_advisory_lock(${key.toString()}::bigint)`;
    await drizzleMigrate(db, { migrationsFolder, migrationsTable: `${service}_migrations`, migrationsSchema: "public" });
  } finally {
    await lock`select pg_advisory_unlock(${key.toString()}::bigint)`.catch(() => undefined);
    lock.release();
    await sql.end({ timeout: 1 });
  }
}

/**
 * Statements as one transaction in one round trip: BEGIN, the statements `build` returns and COMMIT
 * go out in one socket write on a connection reserved for them, and run in that order. `build`
 * returns queries not yet started (postgres.js starts a query when it is awaited); one already
 * started would run outside the transaction, so it is refused before anything is sent. When a
 * statement fails, Postgres turns the COMMIT into a ROLLBACK and the first failure is thrown. What a
 * statement's result means is for the caller to check afterwards: by then it has committed.
 *
 * Why not `sql.begin`: it waits for BEGIN's answer before running the callback and for the callback
 * before COMMIT, so even with its statements pipelined (returned as an array) a transaction costs
 * three round trips, and written as awaits four. Its one caller is the group-committed create of a
 * `/v1/send`'s contacts (services/contacts, `createOrReadMany`), which was half of a send's latency:
 * one round trip instead of four took the accepted /v1/send ratio from 0.36 to 0.40–0.44
 * (`npm run bench -- send`, same-run baseline; commit 88c1aac).
 *
 * The price: it starts the queries itself through postgres.js's query objects (`execute`,
 * `executed`), which are not its documented API. The version is pinned (patches/), and
 * packages/kit/test/one-round-trip.test.ts checks on the real server that it is one write where
 * `sql.begin` is three, and that it commits all or nothing: an upgrade that breaks either fails there.
 */
export async function inOneRoundTrip<P extends readonly Promise<unknown>[]>(
  sql: Sql,
  build: (tx: postgres.ISql) => P,
  /** Names the client span `db <span>`, as traced() names a repository method's. */
  span = "inOneRoundTrip",
): Promise<{ -readonly [K in keyof P]: Awaited<P[K]> }> {
  return withSpan(`db ${span}`, { "db.system.name": "postgresql" }, () => roundTrip(sql, build), SpanKind.CLIENT);
}

async function roundTrip<P extends readonly Promise<unknown>[]>(
  sql: Sql,
  build: (tx: postgres.ISql) => P,
): Promise<{ -readonly [K in keyof P]: Awaited<P[K]> }> {
  const tx = await reserve(sql);
  try {
    // typed as promises (a query's type says nothing of whether it started): checked here
    const statements = build(tx) as unknown as ReadonlyArray<{ execute?: () => Promise<unknown>; executed?: boolean }>;
    if (statements.some((q) => typeof q.execute !== "function" || q.executed)) {
      throw new Error("inOneRoundTrip: every statement must be a query not yet started");
    }
    // executed in this order, in one write: each query starts in a microtask queued in this order
    const all = [tx`begin`, ...statements, tx`commit`].map((q) => q.execute!());
    const settled = await Promise.allSettled(all);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    return settled.slice(1, -1).map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof P]: Awaited<P[K]> };
  } finally {
    tx.release();
  }
}

/**
 * How long a round trip waits for a connection of its own. Longer than any caller still waits for its
 * answer (RPCs give up after 5 s), so it only ever ends a wait that would otherwise never end.
 */
const RESERVE_TIMEOUT_MS = 10_000;

/**
 * `sql.reserve()`, bounded. The ways postgres.js 3.4.9 lost a waiting reserve for good are patched
 * (patches/, porsager/postgres#1195); this bound is the backstop for any other, since a caller
 * awaiting a reserve (a Batcher's one batch in flight, say) holds everything behind it. The timeout
 * is a CONNECT_TIMEOUT, so callers answer 503; a connection that comes after it goes straight back.
 */
async function reserve(sql: Sql): Promise<postgres.ReservedSql> {
  const pending = sql.reserve();
  try {
    return await withTimeout(pending, RESERVE_TIMEOUT_MS, () =>
      Object.assign(new Error(`no database connection within ${RESERVE_TIMEOUT_MS} ms`), { code: "CONNECT_TIMEOUT" }),
    );
  } catch (err) {
    pending.then((late) => late.release(), () => undefined);
    throw err;
  }
}

/** COPY text format: backslash, tab, newline and carriage return escaped. */
export function copyEscape(s: string): string {
  return s.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

/**
 * Sends `text` (COPY text format lines) through `statement` (`copy … from stdin`) and waits until
 * the server has taken it. postgres.js 3.4.9 never settles a COPY the server refuses after its last
 * byte (it only resolved the query with the stream), so the wait is bounded: past `timeoutMs` the
 * COPY counts as failed and the caller's transaction with it.
 */
export async function copyText(q: postgres.ISql, statement: string, text: string, timeoutMs = 30_000): Promise<void> {
  const stream = await q.unsafe(statement).writable();
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      stream.once("finish", resolve);
      stream.once("error", reject);
      stream.end(text);
    }),
    timeoutMs,
    () => new Error(`COPY not acknowledged within ${timeoutMs} ms`),
  );
}

/** True for errors that mean "the database is unreachable" rather than "the query is wrong". */
export function isConnectionError(err: unknown): boolean {
  // a wrapped driver error (drizzle's migrator, say) keeps it as `cause`
  const cause = (err as { cause?: unknown })?.cause;
  if (cause && cause !== err && isConnectionError(cause)) return true;
  const code = (err as { code?: string })?.code ?? "";
  return (
    // EPIPE: a write to a socket the server had just closed (seen when PostgreSQL was killed mid-burst)
    ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT"].includes(code) ||
    code.startsWith("08") ||
    // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up)
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03"
  );
}
