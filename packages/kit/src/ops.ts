import { createServer, type Server } from "node:http";
import type { Metrics } from "./metrics.js";

export type ReadinessCheck = () => Promise<void>;

/**
 * The per-service ops port: /livez (the process is alive), /readyz (it can do its work: every
 * dependency answers within a bound; 503 while shutting down), /metrics (Prometheus).
 */
export class OpsServer {
  private server: Server | undefined;
  private draining = false;

  constructor(
    private readonly checks: Record<string, ReadinessCheck>,
    private readonly metrics: Metrics,
    /** Checks whose failure degrades the service but must not take it out of rotation. */
    private readonly optional: ReadonlySet<string> = new Set(),
  ) {}

  markDraining(): void {
    this.draining = true;
  }

  async listen(port: number, host = "0.0.0.0"): Promise<number> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (path === "/livez") return void res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      if (path === "/readyz") {
        void this.readiness().then(({ ok, checks }) => {
          res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
          res.end(JSON.stringify({ status: ok ? "ready" : "not ready", checks }));
        });
        return;
      }
      if (path === "/metrics") {
        void this.metrics.registry.metrics().then((text) => {
          res.writeHead(200, { "content-type": this.metrics.registry.contentType });
          res.end(text);
        });
        return;
      }
      res.writeHead(404, { "content-type": "application/json" }).end('{"status":"not found"}');
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(port, host, resolve);
    });
    const addr = this.server.address();
    return typeof addr === "object" && addr ? addr.port : port;
  }

  async readiness(): Promise<{ ok: boolean; checks: Record<string, string> }> {
    if (this.draining) return { ok: false, checks: { shutdown: "draining" } };
    const entries = await Promise.all(
      Object.entries(this.checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 1500);
          return [name, "ok"] as const;
        } catch (err) {
          const why = String((err as Error)?.message ?? err);
          return [name, this.optional.has(name) ? `degraded: ${why}` : why] as const;
        }
      }),
    );
    const ok = entries.every(([name, v]) => v === "ok" || this.optional.has(name));
    return { ok, checks: Object.fromEntries(entries) };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** `p`, or a rejection with `timedOut()` once `ms` have passed without it settling. */
export function withTimeout<T>(p: Promise<T>, ms: number, timedOut = () => new Error(`timed out after ${ms} ms`)): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(timedOut()), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}
