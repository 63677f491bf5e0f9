import { type Logger, newId, type Sql } from "@mailroom/kit";
import { executionsRepo } from "../db/executions-repo.js";
import type { Engine } from "./engine.js";
import * as waitForEvent from "./wait-for-event.js";

/**
 * Every `intervalMs`: fires due timers (DELAY, WAIT_FOR_EVENT timeouts) and takes over RUNNING
 * executions whose claim expired (their replica died, or a step backed off). Both are single
 * statements with FOR UPDATE SKIP LOCKED, so any number of replicas poll side by side.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly sql: Sql,
    private readonly engine: Engine,
    private readonly log: Logger,
    private readonly opts: { intervalMs: number; leaseMs: number },
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((err) => this.log.warn({ err: String(err) }, "workflow poll failed"))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.opts.intervalMs);
  }

  private async tick(): Promise<void> {
    for (;;) {
      const room = this.engine.capacity;
      if (room === 0) return;
      const token = newId();
      const fired = await waitForEvent.timeOut(this.sql, room, token, this.opts.leaseMs);
      const abandoned = await executionsRepo.claimAbandoned(this.sql, Math.max(0, room - fired.length), token, this.opts.leaseMs);
      this.engine.submit([...fired, ...abandoned]);
      // a full batch means more are due: go again instead of waiting a whole interval
      if (fired.length + abandoned.length < room || this.stopped) return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
