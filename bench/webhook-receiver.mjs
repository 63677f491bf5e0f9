// The webhooks benchmark's receiver, in a process of its own (as bench/sink.mjs is for SMTP): answers
// 200 at once, except under /hang/, which never answers (the caller's timeout ends the call). Per
// path it counts calls and distinct webhook-ids, and keeps each call's latency from the event's
// `timestamp` (when it occurred) to its arrival.
import { createServer } from "node:http";

export function startReceiver() {
  let byPath = {};
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url.split("?")[0];
      if (path.startsWith("/hang/")) return; // held open until the caller gives up
      const p = (byPath[path] ??= { calls: 0, ids: new Set(), latencies: [], first: null, last: null });
      const now = Date.now();
      p.calls++;
      p.ids.add(req.headers["webhook-id"]);
      try {
        p.latencies.push(now - Date.parse(JSON.parse(Buffer.concat(chunks).toString()).timestamp));
      } catch {}
      p.first ??= now;
      p.last = now;
      res.end("ok");
    });
  });
  const stats = () =>
    Object.fromEntries(Object.entries(byPath).map(([k, p]) => [k, { calls: p.calls, distinct: p.ids.size, first: p.first, last: p.last }]));
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: server.address().port,
        stats,
        latencies: (path) => byPath[path]?.latencies ?? [],
        reset: () => (byPath = {}),
        stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
      }),
    ),
  );
}

/** The receiver in a child process; `stats()`, `latencies(path)` and `reset()` answer over IPC. */
export async function startReceiverProcess() {
  const { fork } = await import("node:child_process");
  const child = fork(new URL(import.meta.url).pathname, ["--child"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let nextId = 0;
  const waiting = new Map();
  child.on("message", (m) => {
    waiting.get(m.id)?.(m.value);
    waiting.delete(m.id);
  });
  const ask = (op, arg) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.send({ id, op, arg }, (err) => err && reject(err));
    });
  const port = await ask("port");
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stats: () => ask("stats"),
    latencies: (path) => ask("latencies", path),
    reset: () => ask("reset"),
    async stop() {
      await ask("stop");
      child.disconnect();
    },
  };
}

if (process.argv.includes("--child") && process.send) {
  const r = await startReceiver();
  const ops = { port: () => r.port, stats: () => r.stats(), latencies: (path) => r.latencies(path), reset: () => r.reset(), stop: () => r.stop() };
  process.on("message", async ({ id, op, arg }) => process.send({ id, value: (await ops[op](arg)) ?? null }));
  process.on("disconnect", () => process.exit(0));
}
