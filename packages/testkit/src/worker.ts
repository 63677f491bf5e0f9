/**
 * What a test worker keeps for the files it runs one after another: the platform project's workers
 * are long-lived processes that keep imported modules between files (vitest.config.ts, `isolate:
 * false`), so a database connection or a browser opened by one file serves the next. Each is
 * closed when the worker ends.
 *
 * vitest ends a worker with SIGTERM and SIGKILLs it one second later (tinypool's terminate); a
 * worker whose parent died sees its IPC channel disconnect instead. Either way the worker closes
 * what it kept and exits: kept connections would otherwise hold its event loop open, so 'beforeExit'
 * never comes, and a SIGTERM listener (Playwright adds one) turns off node's exit on that signal.
 */
type Close = () => Promise<unknown>;

const kept = new Set<Close>();
let listening = false;
let ending: Promise<never> | undefined;

/** Closing what one worker keeps is quick; past this it exits anyway, before tinypool's SIGKILL. */
const CLOSE_BOUND_MS = 800;

/** Runs `close` when the worker ends; the returned function forgets it (for what was closed sooner). */
export function closeAtWorkerEnd(close: Close): () => void {
  kept.add(close);
  if (!listening) {
    listening = true;
    process.once("SIGTERM", () => void (ending ??= endWorker(128 + 15)));
    // only a process with an IPC channel (a forked worker) ever sees it
    process.once("disconnect", () => void (ending ??= endWorker(1)));
  }
  return () => void kept.delete(close);
}

async function endWorker(code: number): Promise<never> {
  const bound = new Promise((resolve) => setTimeout(resolve, CLOSE_BOUND_MS).unref());
  await Promise.race([Promise.allSettled([...kept].map((close) => close())), bound]);
  process.exit(code);
}
