import type { Logger, Sql } from "@mailroom/kit";
import { campaignsRepo } from "../db/campaigns-repo.js";

/**
 * Every replica ticks; the database decides. Each tick starts the SCHEDULED campaigns whose time has
 * come (a conditional UPDATE, so one start per campaign however many replicas tick at once, and a
 * replica that was down at that time starts it on its first tick back), then marks SENT the SENDING
 * campaigns that have finished, a safety net for the stats consumer's own check.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly onStarted: (ids: string[]) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    void this.tick();
  }

  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = (async () => {
      try {
        const started = await campaignsRepo.startDue(this.sql);
        if (started.length) {
          this.log.info({ campaignIds: started }, "scheduled campaigns started");
          this.onStarted(started);
        }
        const finished = await campaignsRepo.completeFinished(this.sql);
        if (finished.length) this.log.info({ campaignIds: finished }, "campaigns sent");
      } catch (err) {
        this.log.warn({ err: String(err) }, "scheduler tick failed; next tick retries");
      }
    })();
    await this.ticking;
    this.ticking = undefined;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }
}
