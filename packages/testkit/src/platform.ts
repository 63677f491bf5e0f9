import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { SERVICES, type ServiceName } from "@mailroom/contracts";
import { freePort } from "./ports.js";
import { waitFor } from "./wait.js";
import { deleteStreams, dropDatabases } from "./cleanup.js";
import { GatewayOperator, type TestProject, verifyDomain } from "./operator.js";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The node flags every launcher runs a service with (the file says why). */
const NODE_FLAGS: string[] = JSON.parse(readFileSync(join(REPO_ROOT, "packages", "kit", "node-flags.json"), "utf8")).flags;
export const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A run id that names this run's databases (`<prefix>_<service>`) and NATS objects. */
export function runPrefix(tag = "t"): string {
  return `mrt_${tag}_${randomBytes(4).toString("hex")}`;
}

/**
 * How long a service may take to answer /readyz. PLATFORM_READY_TIMEOUT_MS raises it for platforms
 * started at the lowest CPU priority (npm test's benchmark smoke runs, beside the fault suite), which
 * wait for whatever CPU the fault tests leave them.
 */
const READY_TIMEOUT_MS = Number(process.env.PLATFORM_READY_TIMEOUT_MS) || 30_000;

export interface PlatformOptions {
  services?: ServiceName[];
  /** Shared prefix (DB and NATS); a fresh one when omitted. */
  prefix?: string;
  env?: Record<string, string>;
  /** Per-service env on top of `env`. */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
}

export interface ServiceProcess {
  name: ServiceName;
  opsPort: number;
  child: ChildProcess;
  logFile: string;
}

/**
 * Runs real service processes (node dist/main.js) against the real NATS, PostgreSQL and Redis, with
 * a prefix of their own, and removes every database and stream of that prefix on `destroy()`.
 */
export class Platform {
  readonly prefix: string;
  readonly env: Record<string, string>;
  readonly procs = new Map<ServiceName, ServiceProcess[]>();
  readonly logDir: string;
  gatewayPort = 0;
  private gatewayOperator: Promise<GatewayOperator> | undefined;

  constructor(private readonly opts: PlatformOptions = {}) {
    this.prefix = opts.prefix ?? runPrefix();
    this.logDir = join(REPO_ROOT, ".mailroom", "test-logs", this.prefix);
    mkdirSync(this.logDir, { recursive: true });
    this.env = {
      NODE_ENV: "test",
      MAILROOM_EXIT_WITH_PARENT: "1",
      NATS_URL,
      DATABASE_URL,
      REDIS_URL,
      NATS_PREFIX: this.prefix,
      DB_PREFIX: this.prefix,
      LOG_LEVEL: "info",
      MAILROOM_SECRET: `test-secret-${this.prefix}`,
      MAILROOM_DATA_DIR: join(REPO_ROOT, ".mailroom", "test-data", this.prefix),
      // Test runs start several platforms against one PostgreSQL (max_connections 100 by default).
      DB_POOL_MAX: "4",
      // CI shares two cores with the whole platform; tests that need a tight bound set their own.
      RPC_TIMEOUT_MS: "15000",
      RATE_LIMIT_PER_SECOND: "2000",
      RATE_LIMIT_BURST: "4000",
      // every test client is 127.0.0.1: the per-address limits are tested on platforms of their own
      IP_RATE_LIMIT_PER_SECOND: "100000",
      IP_RATE_LIMIT_BURST: "200000",
      AUTH_FAILURES_PER_SECOND: "100000",
      AUTH_FAILURES_BURST: "200000",
      FORM_SUBMISSIONS_PER_MINUTE: "100000",
      // every platform's sending service would otherwise bind 2525; tests that deliver to it set a port
      INBOUND_SMTP_PORT: "0",
      // JetStream reserves a bucket's bound from the server's storage: platforms running side by side
      // (and other checkouts' runs on the same server) must not reserve gigabytes each
      BLOBS_MAX_BYTES: String(256 * 1024 * 1024),
      // an A/B test's wait in seconds rather than minutes (the API's least is 5 minutes), test only
      CAMPAIGNS_AB_MINUTE_MS: "1000",
      // a relay's 4xx retried after 1, 5, 15 and 60 seconds rather than minutes, test only
      DELIVERY_TIME_SCALE: "60",
      // where a test sets one project's clock (setProjectClock), test only
      TEST_CLOCK_DIR: join(REPO_ROOT, ".mailroom", "test-data", this.prefix, "clock"),
      ...opts.env,
    };
  }

  get url(): string {
    return `http://127.0.0.1:${this.gatewayPort}`;
  }

  async start(): Promise<this> {
    const services = this.opts.services ?? (Object.keys(SERVICES) as ServiceName[]);
    if (services.includes("gateway")) {
      this.gatewayPort = await freePort();
      this.env.PUBLIC_URL ??= `http://127.0.0.1:${this.gatewayPort}`;
    }
    // Services with databases migrate under a lock, so starting them together is safe.
    const started = await Promise.allSettled(services.map((s) => this.startService(s)));
    const failed = started.find((r) => r.status === "rejected");
    if (failed) {
      // Callers clean up in a finally that a failed start never reaches: leave no databases or streams.
      await this.destroy();
      throw failed.reason;
    }
    return this;
  }

  async startService(name: ServiceName, extraEnv: Record<string, string> = {}): Promise<ServiceProcess> {
    const opsPort = await freePort();
    const replicas = this.procs.get(name) ?? [];
    const logFile = join(this.logDir, `${name}-${replicas.length}.log`);
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...this.env,
      ...this.opts.serviceEnv?.[name],
      ...extraEnv,
      OPS_PORT: String(opsPort),
    };
    if (name === "gateway") env.PORT = String(this.gatewayPort);
    // The service writes its own log file: a line is there once the service has written it, however
    // busy this process is (piping through it made readers wait on its event loop), and none is lost
    // if this process dies first.
    const log = openSync(logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [...NODE_FLAGS, join(REPO_ROOT, "services", name, "dist", "main.js")], {
        env,
        stdio: ["ignore", log, log],
      });
    } finally {
      closeSync(log); // the child holds its own copy
    }
    const proc: ServiceProcess = { name, opsPort, child, logFile };
    replicas.push(proc);
    this.procs.set(name, replicas);
    let exited = false;
    child.once("exit", () => (exited = true));
    await waitFor(
      async () => {
        if (exited) throw new Error(`${name} exited during start-up; see ${logFile}`);
        const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => null);
        return res?.status === 200;
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 100, what: `${name} to be ready` },
    );
    return proc;
  }

  /** Sends a signal to every replica of a service and waits for them to exit. */
  async stopService(name: ServiceName, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const replicas = this.procs.get(name) ?? [];
    await Promise.all(replicas.map((p) => exitOf(p.child, signal)));
    this.procs.delete(name);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs.keys()].map((n) => this.stopService(n, "SIGTERM")));
  }

  /** Stops everything and removes this run's databases and streams. */
  async destroy(): Promise<void> {
    await this.stop();
    const operator = this.gatewayOperator;
    this.gatewayOperator = undefined;
    await operator?.then((op) => op.close()).catch(() => undefined);
    await dropDatabases(DATABASE_URL, this.prefix).catch(() => undefined);
    await deleteStreams(NATS_URL, this.prefix).catch(() => undefined);
  }

  /** `mailroom …` with this platform's environment; returns stdout (throws on a non-zero exit). */
  async cli(args: string[]): Promise<string> {
    return runCli(args, this.env);
  }

  /** What `mailroom projects create` and `users create` do, in this process (see GatewayOperator); closed by destroy(). */
  operator(): Promise<GatewayOperator> {
    this.gatewayOperator ??= GatewayOperator.open(this.env);
    return this.gatewayOperator;
  }

  async createProject(name = "test"): Promise<TestProject> {
    return (await this.operator()).createProject(name);
  }

  /** What `mailroom domains verify` does, in this process (see verifyDomain); the sending service must be running. */
  verifyDomain(projectId: string, domain: string): Promise<void> {
    return verifyDomain(this.env, projectId, domain);
  }
}

export function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "services", "gateway", "dist", "cli.js"), ...args], {
      env: { ...(process.env as Record<string, string>), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`mailroom ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

function exitOf(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill("SIGKILL"), 12_000);
    child.once("exit", () => (clearTimeout(t), resolve()));
    child.kill(signal);
  });
}
