import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tcpConnect } from "node:net";
import { freePort, waitFor } from "@mailroom/testkit";

/**
 * Private NATS, PostgreSQL and Redis servers for the fault tests: each on a free port with its own
 * data directory, so a test can kill and restart its infrastructure while other engineers' tests use
 * the shared servers on 4222/5432/6379. Every server is also killed when the process exits, so a
 * failed or interrupted test leaves nothing running.
 */
export interface InfraServer {
  readonly url: string;
  /** Stops the server: SIGTERM (clean) or SIGKILL (crash); its data stays for `start()`. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** (Re)starts it on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

const exitHooks = new Set<() => void>();
process.once("exit", () => {
  for (const hook of exitHooks) hook();
});

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `mailroom-faults-${tag}-`));
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect({ host: "127.0.0.1", port }, () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/** A server that runs as our child process (NATS, Redis). */
export abstract class ChildServer implements InfraServer {
  protected child: ChildProcess | undefined;
  private readonly hook = () => this.child?.kill("SIGKILL");

  constructor(
    readonly port: number,
    protected readonly dir: string,
  ) {
    exitHooks.add(this.hook);
  }

  /** How long a start may take before `ready()` answers true. */
  protected readonly startTimeoutMs: number = 20_000;

  abstract get url(): string;
  protected abstract command(): [string, string[]];
  protected abstract ready(): Promise<boolean>;

  /** Started and not stopped since. */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** The server's process id while it runs (for CPU and memory figures). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const [cmd, args] = this.command();
    const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.on("data", (d) => (err = (err + d).slice(-2000)));
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${cmd} exited ${child.exitCode}: ${err}`);
        return this.ready();
      },
      { timeoutMs: this.startTimeoutMs, intervalMs: 50, what: `${cmd} on port ${this.port}` },
    );
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(signal);
    await exited(child);
    this.child = undefined;
  }

  async destroy(): Promise<void> {
    await this.stop("SIGKILL");
    exitHooks.delete(this.hook);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

class NatsServer extends ChildServer {
  constructor(
    port: number,
    private readonly monitorPort: number,
  ) {
    super(port, tempDir("nats"));
  }
  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }
  protected command(): [string, string[]] {
    const args = ["-a", "127.0.0.1", "-p", String(this.port), "-m", String(this.monitorPort), "-js", "-sd", this.dir];
    return [process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server", args];
  }
  protected async ready() {
    // /healthz answers 200 only once JetStream is up (nats-server 2.9).
    const res = await fetch(`http://127.0.0.1:${this.monitorPort}/healthz`).catch(() => null);
    return res?.status === 200;
  }
}

class RedisServer extends ChildServer {
  constructor(port: number) {
    super(port, tempDir("redis"));
  }
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  protected command(): [string, string[]] {
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", this.dir];
    return [process.env.REDIS_SERVER_BIN ?? "redis-server", args];
  }
  protected ready() {
    return portOpen(this.port);
  }
}

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

/**
 * PostgreSQL refuses to run as root, so when we are root the cluster belongs to the `postgres` OS
 * user: the directory is chowned to it and initdb/pg_ctl run through `runuser -u postgres --`.
 * pg_ctl daemonizes the postmaster; its pid (first line of postmaster.pid) is what the exit hook kills.
 */
class PostgresServer implements InfraServer {
  private readonly dir = tempDir("pg");
  private readonly data = join(this.dir, "data");
  private readonly hook = () => {
    const pid = this.postmasterPid();
    if (pid) {
      try {
        process.kill(pid, "SIGQUIT");
      } catch {
        // already gone
      }
    }
  };

  constructor(readonly port: number) {
    exitHooks.add(this.hook);
  }

  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private run(cmd: string, args: string[]) {
    const asPostgres = process.getuid?.() === 0;
    const r = asPostgres
      ? spawnSync("runuser", ["-u", "postgres", "--", join(PG_BIN, cmd), ...args], { encoding: "utf8" })
      : spawnSync(join(PG_BIN, cmd), args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr || r.stdout}`);
  }

  init(): void {
    if (process.getuid?.() === 0) {
      const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim();
      const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim();
      chownSync(this.dir, Number(ids), Number(gid));
    }
    this.run("initdb", ["-D", this.data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  }

  private postmasterPid(): number | undefined {
    try {
      return Number(readFileSync(join(this.data, "postmaster.pid"), "utf8").split("\n")[0]) || undefined;
    } catch {
      return undefined;
    }
  }

  async start(): Promise<void> {
    // fsync off: a killed postmaster loses nothing the OS has (the machine itself does not crash here).
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    this.run("pg_ctl", ["-D", this.data, "-o", opts, "-l", join(this.dir, "log"), "-w", "-t", "30", "start"]);
  }

  /** SIGTERM: a clean (fast) shutdown; SIGKILL: an immediate one, as after a crash (recovery at start). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (!this.postmasterPid()) return;
    this.run("pg_ctl", ["-D", this.data, "-m", signal === "SIGKILL" ? "immediate" : "fast", "-w", "-t", "30", "stop"]);
  }

  async destroy(): Promise<void> {
    await this.stop("SIGKILL").catch(() => this.hook());
    exitHooks.delete(this.hook);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startNats(): Promise<InfraServer> {
  const server = new NatsServer(await freePort(), await freePort());
  await server.start();
  return server;
}

export async function startRedis(): Promise<InfraServer> {
  const server = new RedisServer(await freePort());
  await server.start();
  return server;
}

export async function startPostgres(): Promise<InfraServer> {
  const server = new PostgresServer(await freePort());
  server.init();
  await server.start();
  return server;
}
