import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Periodic, type PeriodicOptions } from "./periodic.js";

/** A run the test ends by hand, to hold one in progress. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

function loop(run: PeriodicOptions["run"], opts: Partial<PeriodicOptions> = {}) {
  const log = { warn: vi.fn() };
  const periodic = new Periodic({ name: "test loop", everyMs: 100, run, log, ...opts });
  return { periodic, log };
}

describe("Periodic", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs one pause after start, then one pause after each run ends", async () => {
    const run = vi.fn();
    const { periodic } = loop(run);
    periodic.start();
    await vi.advanceTimersByTimeAsync(99);
    expect(run).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(run).toHaveBeenCalledTimes(3);
    await periodic.stop();
  });

  it("runs at start when asked", async () => {
    const run = vi.fn();
    const { periodic } = loop(run, { runAtStart: true });
    periodic.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(1);
    await periodic.stop();
  });

  it("never overlaps runs: a slow run delays the next", async () => {
    let active = 0;
    let most = 0;
    const run = vi.fn(async () => {
      most = Math.max(most, ++active);
      await new Promise((r) => setTimeout(r, 350));
      active--;
    });
    const { periodic } = loop(run);
    periodic.start();
    // runs start at 100, 550, 1000: each 350 ms long, then a 100 ms pause
    await vi.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(3);
    expect(most).toBe(1);
    const kicked = periodic.kick(); // a kick during the third run waits for it, then runs once more
    await vi.advanceTimersByTimeAsync(350);
    expect(run).toHaveBeenCalledTimes(4);
    await vi.advanceTimersByTimeAsync(350);
    await kicked;
    expect(most).toBe(1);
    await periodic.stop();
  });

  it("logs a failing run, throttled, and keeps going after the retry pause", async () => {
    let calls = 0;
    const run = vi.fn(() => {
      calls++;
      if (calls === 1) throw new Error("thrown");
      if (calls < 4) return Promise.reject(new Error("rejected"));
    });
    const { periodic, log } = loop(run, { retryMs: 1000, warnEveryMs: 5000 });
    periodic.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn).toHaveBeenLastCalledWith({ err: "Error: thrown" }, "test loop failed; the next run retries");
    // the next runs come a retry pause apart, and their failures within 5 s are only counted
    await vi.advanceTimersByTimeAsync(999);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(3);
    expect(log.warn).toHaveBeenCalledTimes(1);
    // the fourth succeeds: back to the ordinary pause
    await vi.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(4);
    await vi.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(5);
    await vi.advanceTimersByTimeAsync(5000);
    run.mockImplementation(() => Promise.reject(new Error("again")));
    await periodic.kick();
    expect(log.warn).toHaveBeenCalledTimes(2);
    expect(log.warn).toHaveBeenLastCalledWith({ err: "Error: again", suppressed: 2 }, "test loop failed; the next run retries");
    await periodic.stop();
  });

  it("stop waits for the run in progress, aborts its signal, and no run follows", async () => {
    const held = gate();
    let signal: AbortSignal | undefined;
    const run = vi.fn(async (s: AbortSignal) => {
      signal = s;
      await held.opened;
    });
    const { periodic } = loop(run, { runAtStart: true });
    periodic.start();
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    const kicked = periodic.kick(); // after stop: nothing
    await vi.advanceTimersByTimeAsync(0);
    expect(signal?.aborted).toBe(true);
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    await kicked;
    await vi.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("a kick during a run is not lost when the loop stops before it runs", async () => {
    const held = gate();
    const run = vi.fn(() => held.opened);
    const { periodic } = loop(run, { runAtStart: true });
    periodic.start();
    await vi.advanceTimersByTimeAsync(0);
    const kicked = periodic.kick();
    const stopping = periodic.stop();
    held.open();
    await Promise.all([kicked, stopping]);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("runs at once on a kick, and coalesces the kicks made during a run into one more run", async () => {
    const held = gate();
    const run = vi.fn().mockImplementationOnce(() => held.opened);
    const { periodic } = loop(run, { everyMs: 60_000 });
    periodic.start();
    const first = periodic.kick();
    expect(run).toHaveBeenCalledTimes(1);
    const second = periodic.kick();
    const third = periodic.kick();
    expect(second).toBe(third);
    held.open();
    await first;
    await second;
    expect(run).toHaveBeenCalledTimes(2);
    // the pause restarts after the kicked run
    await vi.advanceTimersByTimeAsync(59_999);
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(3);
    await periodic.stop();
  });

  it("does nothing on a kick before start, and starts again after a stop", async () => {
    const run = vi.fn();
    const { periodic } = loop(run);
    await periodic.kick();
    expect(run).toHaveBeenCalledTimes(0);
    periodic.start();
    periodic.start(); // a second start is no second loop
    await periodic.stop();
    periodic.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(1);
    await periodic.stop();
  });

  it("refuses a start while its stop is still waiting for a run", async () => {
    const held = gate();
    const { periodic } = loop(() => held.opened, { runAtStart: true });
    periodic.start();
    const stopping = periodic.stop();
    expect(() => periodic.start()).toThrow(/test loop: started again before its stop\(\) finished/);
    held.open();
    await stopping;
  });

  it("refuses pauses that are not positive numbers of milliseconds", () => {
    expect(() => loop(vi.fn(), { everyMs: 0 })).toThrow(/test loop: everyMs must be a positive number of milliseconds, not 0/);
    expect(() => loop(vi.fn(), { everyMs: Number.NaN })).toThrow(/everyMs/);
    expect(() => loop(vi.fn(), { retryMs: -1 })).toThrow(/retryMs/);
    expect(() => loop(vi.fn(), { warnEveryMs: Number.POSITIVE_INFINITY })).toThrow(/warnEveryMs/);
  });
});

describe("Periodic timers", () => {
  it("never keep the process alive", async () => {
    const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = refTimers();
    const { periodic } = loop(vi.fn(), { everyMs: 60_000 });
    periodic.start();
    expect(refTimers()).toBe(before);
    await periodic.kick(); // re-armed after a run: still unref'd
    expect(refTimers()).toBe(before);
    await periodic.stop();
  });
});
