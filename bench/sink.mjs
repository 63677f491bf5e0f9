// The benchmarks' SMTP sink: accepts every message on loopback and counts it, by arrival and by
// Message-ID (a repeat is counted apart), without parsing it. The development mailbox parses every message
// with mailparser for its web page, about a millisecond of CPU per message taken from the two
// cores the measured services share; a relay takes a message and queues it, and so does this.
import { SMTPServer } from "smtp-server";

const MESSAGE_ID = /^message-id:\s*(<[^>\r\n]+>)/im;

/**
 * `timed`: recipient domains whose every message's arrival is kept by recipient (`arrivals()`), for
 * latencies measured from the moment the bench sent each one. Counts by recipient domain come with
 * `stats()` whatever `timed` says.
 */
export async function startSink({ timed = [] } = {}) {
  let count = 0;
  let first = null;
  let last = null;
  const byMessageId = new Set();
  let duplicates = 0;
  /** domain → { count, first, last } */
  let byDomain = {};
  const timedDomains = new Set(timed);
  let arrivals = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      let head = "";
      stream.on("data", (chunk) => {
        // Message-ID sits in the header block; the first 8 KiB always holds it for these messages.
        if (head.length < 8192) head += chunk.toString("latin1", 0, Math.min(chunk.length, 8192));
      });
      stream.on("end", () => {
        const id = MESSAGE_ID.exec(head.slice(0, head.indexOf("\r\n\r\n") >>> 0))?.[1];
        if (id && byMessageId.has(id)) duplicates++;
        else if (id) byMessageId.add(id);
        count++;
        last = Date.now();
        first ??= last;
        const to = session.envelope.rcptTo[0]?.address ?? "";
        const domain = to.slice(to.lastIndexOf("@") + 1).toLowerCase();
        const d = (byDomain[domain] ??= { count: 0, first: last, last });
        d.count++;
        d.last = last;
        if (timedDomains.has(domain)) arrivals.push([to, last]);
        callback();
      });
    },
  });
  server.on("error", () => {});
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    stats: () => ({ count, first, last, distinctMessageIds: byMessageId.size, duplicates, byDomain }),
    /** [recipient, arrival ms] of the `timed` domains' messages, in arrival order. */
    arrivals: () => arrivals,
    reset() {
      count = 0;
      first = null;
      last = null;
      byMessageId.clear();
      duplicates = 0;
      byDomain = {};
      arrivals = [];
    },
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * The sink in a process of its own, so that it does not share the bench process (and its one core)
 * with the baseline's nodemailer pool: measured in one process, the bare pool paid for the sink too.
 * Same interface, except that `stats()` and `reset()` answer over IPC, so they return promises.
 */
export async function startSinkProcess({ timed = [] } = {}) {
  const { fork } = await import("node:child_process");
  const child = fork(new URL(import.meta.url).pathname, ["--child", ...timed.map((d) => `--timed=${d}`)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let nextId = 0;
  const waiting = new Map();
  child.on("message", (m) => {
    waiting.get(m.id)?.(m.value);
    waiting.delete(m.id);
  });
  const ask = (op) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.send({ id, op }, (err) => err && reject(err));
    });
  const url = await ask("url");
  return {
    url,
    pid: child.pid,
    stats: () => ask("stats"),
    arrivals: () => ask("arrivals"),
    reset: () => ask("reset"),
    async stop() {
      await ask("stop");
      child.disconnect();
    },
  };
}

/** Until `sink` (either kind) holds `count` messages, for up to 30 minutes. */
export async function sinkReaches(sink, count, what) {
  const { waitFor } = await import("@mailroom/testkit");
  await waitFor(async () => (await sink.stats()).count >= count, { timeoutMs: 30 * 60_000, intervalMs: 200, what });
}

/**
 * Until nothing more arrives at `sink` for two seconds (a backlog accepted earlier, delivered):
 * answers how many it then holds, so a delivery measurement starts from an empty pipeline.
 */
export async function sinkSettled(sink) {
  const { waitFor } = await import("@mailroom/testkit");
  const settled = await waitFor(
    async () => {
      const before = (await sink.stats()).count;
      await new Promise((r) => setTimeout(r, 2000));
      // an object: a backlog of none (nothing accepted) is an answer too
      return (await sink.stats()).count === before ? { count: before } : null;
    },
    { timeoutMs: 30 * 60_000, what: "the accepted backlog delivered" },
  );
  return settled.count;
}

if (process.argv.includes("--child") && process.send) {
  const timed = process.argv.filter((a) => a.startsWith("--timed=")).map((a) => a.slice("--timed=".length));
  const sink = await startSink({ timed });
  const ops = { url: () => sink.url, stats: () => sink.stats(), arrivals: () => sink.arrivals(), reset: () => sink.reset() };
  process.on("message", async ({ id, op }) => {
    const value = ops[op] ? ops[op]() : await sink.stop();
    process.send({ id, value: value ?? null });
  });
  process.on("disconnect", () => process.exit(0));
}
