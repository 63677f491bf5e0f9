import type { z } from "zod";
import { wireNames, type ServiceName, type WireNames } from "@mailroom/contracts";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { loadConfig, type ServiceConfig } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { connectNats, coreStreams, ensureStreams, jetstreamOf } from "./nats.js";
import { Blobs } from "./blobs.js";
import { RpcClient, RpcServer } from "./rpc.js";
import { migrate, openDatabase, type Sql } from "./db.js";
import { OutboxRelay } from "./outbox.js";
import { connectRedis, createRedis, type Redis } from "./redis.js";
import { ConsumerRunner, type ConsumerSpec } from "./consumer.js";
import { BatchConsumer, type BatchConsumerSpec } from "./batch-consumer.js";
import { DeadLetters } from "./dead-letter.js";
import { OpsServer, type ReadinessCheck } from "./ops.js";
import { Periodic } from "./periodic.js";
import { stopTelemetry } from "./telemetry.js";

export interface Deps<E extends z.ZodRawShape = {}> {
  config: ServiceConfig<E>;
  log: Logger;
  metrics: Metrics;
  names: WireNames;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  blobs: Blobs;
  rpc: RpcClient;
  /** Present when the service owns a database. */
  sql: Sql;
  outbox: OutboxRelay;
  /** Present when the service asked for Redis. */
  redis: Redis;
}

/** What a service's app.ts builds from its deps. Nothing here listens until the runtime says so. */
export interface ServiceApp {
  register?(server: RpcServer): void;
  consumers?: ConsumerSpec[];
  /** Consumers that apply a batch of messages per transaction (see BatchConsumer). */
  batchConsumers?: BatchConsumerSpec<any>[]; // each spec has its own item type
  /** Background work (schedulers, the gateway's HTTP server), started once handlers are live. */
  start?(): Promise<void>;
  /** Stops background work and lets its in-flight work finish. Runs before NATS drains. */
  stop?(): Promise<void>;
  checks?: Record<string, ReadinessCheck>;
}

export interface ServiceSpec<E extends z.ZodRawShape> {
  name: ServiceName;
  env?: z.ZodObject<E>;
  /** Folder of committed SQL migrations; given when the service owns a database. */
  migrationsFolder?: string;
  /**
   * "required": Redis down makes the service unready. "optional": the service degrades (rate limits
   * off, caches bypassed) and stays in rotation; /readyz reports it as degraded.
   */
  redis?: "required" | "optional";
  build(deps: Deps<E>): ServiceApp | Promise<ServiceApp>;
}

export interface RunningService {
  opsPort: number;
  log: Logger;
  stop(reason?: string): Promise<void>;
}

/**
 * Starts a service in the one order every service uses: config → logger → NATS and streams →
 * database (migrated under a lock) → Redis → app → handlers → consumers → background → ready.
 * Shutdown runs the same steps backwards, bounded by SHUTDOWN_TIMEOUT_MS.
 */
export async function runService<E extends z.ZodRawShape>(spec: ServiceSpec<E>): Promise<RunningService> {
  const config = loadConfig(spec.name, spec.env);
  const log = createLogger(spec.name, config.LOG_LEVEL);
  const metrics = createMetrics(spec.name);
  const names = wireNames(config.NATS_PREFIX);

  const nc = await connectNats(config, `mailroom-${spec.name}`, log);
  const { js, jsm: jsmP } = jetstreamOf(nc);
  const jsm = await jsmP;
  await ensureStreams(jsm, coreStreams(names, config.NATS_REPLICAS));
  const blobs = new Blobs(nc, names.buckets.blobs, config.BLOBS_MAX_BYTES, config.NATS_REPLICAS);
  const rpc = new RpcClient(nc, names, blobs, config.RPC_TIMEOUT_MS, { coalesce: config.RPC_COALESCE });

  const deps = { config, log, metrics, names, nc, js, jsm, blobs, rpc } as Deps<E>;
  const checks: Record<string, ReadinessCheck> = {
    nats: async () => {
      if (nc.isClosed()) throw new Error("closed");
      await nc.flush();
    },
  };

  if (spec.migrationsFolder && config.databaseUrl) {
    await migrate(config.databaseUrl, spec.name, spec.migrationsFolder);
    const sql = openDatabase(config.databaseUrl, { max: (config as { DB_POOL_MAX?: number }).DB_POOL_MAX ?? 10 });
    deps.sql = sql;
    deps.outbox = new OutboxRelay(sql, js, log, metrics);
    checks.postgres = async () => void (await sql`select 1`);
  }
  if (spec.redis) {
    deps.redis = createRedis(config.REDIS_URL);
    await connectRedis(deps.redis);
    checks.redis = async () => void (await deps.redis.ping());
  }

  const app = await spec.build(deps);
  Object.assign(checks, app.checks);
  const ops = new OpsServer(checks, metrics, new Set(spec.redis === "optional" ? ["redis"] : []));
  const opsPort = await ops.listen(config.opsPort);

  const server = new RpcServer(nc, names, spec.name, blobs, log, metrics);
  app.register?.(server);
  server.start();
  const runners: Array<{ stop(): Promise<void> }> = [];
  const consumerDeps = { js, jsm, log, metrics, deadLetters: new DeadLetters(js, names, metrics), ackWaitMs: config.CONSUMER_ACK_WAIT_MS };
  for (const c of app.consumers ?? []) {
    const runner = new ConsumerRunner(consumerDeps, c);
    await runner.start();
    runners.push(runner);
  }
  for (const c of app.batchConsumers ?? []) {
    const runner = new BatchConsumer(consumerDeps, c);
    await runner.start();
    runners.push(runner);
  }
  deps.outbox?.start();
  await app.start?.();
  log.info({ opsPort }, `${spec.name} started`);

  let stopping: Promise<void> | undefined;
  const stop = (reason = "stop") =>
    (stopping ??= (async () => {
      log.info({ reason }, `${spec.name} shutting down`);
      const force = setTimeout(() => {
        log.error("shutdown took too long; exiting");
        process.exit(1);
      }, config.SHUTDOWN_TIMEOUT_MS);
      force.unref();
      ops.markDraining();
      await server.stop();
      await Promise.all(runners.map((r) => r.stop()));
      await app.stop?.().catch((err) => log.error({ err }, "app stop failed"));
      await deps.outbox?.stop().catch(() => undefined);
      await nc.drain().catch(() => undefined);
      await deps.sql?.end({ timeout: 2 }).catch(() => undefined);
      deps.redis?.disconnect();
      await ops.close();
      await stopTelemetry();
      clearTimeout(force);
      log.info(`${spec.name} stopped`);
    })());
  return { opsPort, log, stop };
}

/** For main.ts: run, stop in order on SIGTERM/SIGINT, exit 1 with a clear message if start fails. */
export function main<E extends z.ZodRawShape>(spec: ServiceSpec<E>): void {
  // Watched from the first moment: a launcher that dies while the service is still starting must
  // not leave it running (it would only see its new parent by the time it had started).
  let onParentGone: () => void = () => process.exit(1);
  exitWithParent(process.ppid, createLogger(spec.name, "warn"), () => onParentGone());
  runService(spec).then(
    (running) => {
      const onSignal = (signal: string) => void running.stop(signal).then(() => process.exit(0));
      process.once("SIGTERM", () => onSignal("SIGTERM"));
      process.once("SIGINT", () => onSignal("SIGINT"));
      onParentGone = () => onSignal("parent exited");
    },
    (err: Error) => {
      process.stderr.write(`${spec.name} failed to start: ${err.message}\n`);
      process.exit(1);
    },
  );
}

/**
 * `npm start` and the test harness set MAILROOM_EXIT_WITH_PARENT: if the launcher dies without
 * stopping its children (killed, crashed), the service notices within a second and shuts down in
 * order instead of lingering as an orphan holding its ports.
 */
function exitWithParent(parent: number, log: Logger, stop: () => void): void {
  if (!process.env.MAILROOM_EXIT_WITH_PARENT) return;
  const watch = new Periodic({
    name: "parent watch",
    everyMs: 1000,
    log,
    run: () => {
      // A parent of 1 is init: the launcher died before this process even got to main().
      let alive = process.ppid === parent && parent !== 1;
      if (alive) {
        try {
          process.kill(parent, 0);
        } catch {
          alive = false;
        }
      }
      if (alive) return;
      void watch.stop();
      stop();
    },
  });
  watch.start();
}
