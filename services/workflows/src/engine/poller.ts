import { type Logger, newId, Periodic, type Sql } from "@mailroom/kit";
import { executionsRepo } from "../db/executions-repo.js";
import type { Engine } from "./engine.js";
import * as waitForEvent from "./wait-for-event.js";

/**
 * Every `intervalMs`: fires due timers (DELAY, WAIT_FOR_EVENT timeouts) and takes over RUNNING
 * executions whose claim expired (their replica died, or a step backed off). Both are single
 * statements with FOR UPDATE SKIP LOCKED, so any number of replicas poll side by side.
 */
export class Poller {
  private readonly loop: Periodic;

  constructor(
    private readonly sql: Sql,
    private readonly engine: Engine,
    log: Logger,
    private readonly opts: { intervalMs: number; leaseMs: number },
  ) {
    this.loop = new Periodic({ name: "workflow poll", everyMs: opts.intervalMs, log, run: (signal) => this.tick(signal) });
  }

  start(): void {
    this.loop.start();
  }

  private async tick(signal: AbortSignal): Promise<void> {
    for (;;) {
      const room = this.engine.capacity;
      if (room === 0) return;
      const token = newId();
      const fired = await waitForEvent.timeOut(this.sql, room, token, this.opts.leaseMs);
      const abandoned = await executionsRepo.claimAbandoned(this.sql, Math.max(0, room - fired.length), token, this.opts.leaseMs);
      this.engine.submit([...fired, ...abandoned]);
      // a full batch means more are due: go again instead of waiting a whole interval
      if (fired.length + abandoned.length < room || signal.aborted) return;
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
