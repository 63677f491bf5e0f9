import type { Logger } from "./logger.js";
import { warnEvery } from "./warn-every.js";

export interface PeriodicOptions {
  /** Names the loop in its warnings: "<name> failed; the next run retries". */
  name: string;
  /** The pause from the end of one run to the start of the next. */
  everyMs: number;
  /**
   * One run. `signal` aborts when the loop stops: a run that works through batches checks it between
   * them, so stopping waits for one batch, not for the whole backlog.
   */
  run: (signal: AbortSignal) => unknown;
  log: Pick<Logger, "warn">;
  /** Runs once at `start()` instead of one pause after it. */
  runAtStart?: boolean;
  /** The pause after a run that failed (a database away, say). Default `everyMs`. */
  retryMs?: number;
  /** A failing run warns at once, then at most once per this while it keeps failing. Default 60 s. */
  warnEveryMs?: number;
}

/**
 * A background loop, the one way every service and the kit run one. Runs never overlap: the next is
 * timed from the end of the last, so a slow run delays the next instead of stacking behind it. A run
 * that throws or rejects is logged (throttled) and the loop goes on; nothing it does can crash the
 * process. Its timer is unref'd: a loop never keeps a process alive. `kick()` runs at once (a signal
 * that there is work), and kicks made during a run coalesce into one more run right after it.
 * `stop()` waits for the run in progress; none starts after it.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  /** The run in progress, settled once the next one is armed. */
  private current: Promise<void> | undefined;
  /** Kicks made during the current run: one more run, and the callers waiting for its end. */
  private again: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Present while started. */
  private abort: AbortController | undefined;
  private readonly warn: (err: unknown) => void;

  constructor(private readonly opts: PeriodicOptions) {
    for (const key of ["everyMs", "retryMs", "warnEveryMs"] as const) {
      const ms = opts[key];
      if (ms !== undefined && !(Number.isFinite(ms) && ms > 0)) throw new Error(`periodic ${opts.name}: ${key} must be a positive number of milliseconds, not ${ms}`);
    }
    this.warn = warnEvery(opts.log, opts.warnEveryMs ?? 60_000, `${opts.name} failed; the next run retries`);
  }

  start(): void {
    if (this.abort) return;
    if (this.current) throw new Error(`periodic ${this.opts.name}: started again before its stop() finished`);
    this.abort = new AbortController();
    if (this.opts.runAtStart) void this.runNow();
    else this.arm(this.opts.everyMs);
  }

  /**
   * Runs now, or right after the run in progress; resolves when that run has ended (whether it
   * failed or not). Does nothing when the loop is not started.
   */
  kick(): Promise<void> {
    if (!this.abort) return Promise.resolve();
    if (!this.current) return this.runNow();
    if (!this.again) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.again = { promise, resolve };
    }
    return this.again.promise;
  }

  /** Stops the loop: aborts the run's signal, and resolves once the run in progress has ended. */
  async stop(): Promise<void> {
    const abort = this.abort;
    this.abort = undefined;
    abort?.abort();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => void this.runNow(), ms);
    this.timer.unref();
  }

  private runNow(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const signal = this.abort!.signal;
    let failed = false;
    const run = (async () => {
      try {
        await this.opts.run(signal);
      } catch (err) {
        failed = true;
        this.warn(err);
      }
    })();
    const current = run.then(() => {
      this.current = undefined;
      const again = this.again;
      this.again = undefined;
      if (signal.aborted) again?.resolve();
      else if (again) void this.runNow().then(again.resolve);
      else this.arm(failed ? (this.opts.retryMs ?? this.opts.everyMs) : this.opts.everyMs);
    });
    this.current = current;
    return run;
  }
}
