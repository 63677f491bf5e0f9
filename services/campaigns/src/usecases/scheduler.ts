import { type Clock, type Logger, Periodic, type Sql } from "@mailroom/kit";
import { abRepo } from "../db/ab-repo.js";
import { campaignsRepo } from "../db/campaigns-repo.js";

/**
 * Every replica ticks; the database decides. Each tick starts the SCHEDULED campaigns whose time has
 * come (a conditional UPDATE, so one start per campaign however many replicas tick at once, and a
 * replica that was down at that time starts it on its first tick back), picks the winner of each
 * A/B test whose wait is over (the same way: once, by whichever replica gets there; a wait that
 * ended while every replica was down is decided on the first tick back), lets a local-time campaign's
 * fan-out go on once its earliest held recipient is due (the same way), then marks SENT the SENDING
 * campaigns that have finished, a safety net for the stats consumer's own check.
 */
export class Scheduler {
  private readonly loop: Periodic;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    intervalMs: number,
    /** The project's time, which local-time holds are kept in (a test may set it; kit clock.ts). */
    private readonly clock: Clock,
    /** Campaigns have work for a fan-out: started, or their A/B test's winner is known. */
    private readonly onStarted: (ids: string[]) => void,
  ) {
    this.loop = new Periodic({ name: "campaign scheduler tick", everyMs: intervalMs, runAtStart: true, log, run: () => this.tick() });
  }

  start(): void {
    this.loop.start();
  }

  private async tick(): Promise<void> {
    const started = await campaignsRepo.startDue(this.sql);
    if (started.length) {
      this.log.info({ campaignIds: started }, "scheduled campaigns started");
      this.onStarted(started);
    }
    const decided = await abRepo.decideDue(this.sql);
    if (decided.length) {
      for (const d of decided) this.log.info({ campaignId: d.id, winnerVariant: d.winner }, "A/B test decided; sending the winner to the rest");
      this.onStarted(decided.map((d) => d.id));
    }
    const released = await this.releaseHolds();
    if (released.length) {
      this.log.info({ campaignIds: released }, "local time reached; handing the due recipients over");
      this.onStarted(released);
    }
    const finished = await campaignsRepo.completeFinished(this.sql);
    if (finished.length) this.log.info({ campaignIds: finished }, "campaigns sent");
  }

  /**
   * Compared here rather than in SQL because the time is the project's (see Clock); held campaigns
   * are few (one row each, however many recipients wait), so reading them all each tick is cheap.
   */
  private async releaseHolds(): Promise<string[]> {
    const released: string[] = [];
    for (const h of await campaignsRepo.held(this.sql)) {
      if (this.clock.now(h.project_id) < h.hold_until) continue;
      if (await campaignsRepo.releaseHold(this.sql, h.id, h.hold_until)) released.push(h.id);
    }
    return released;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
