import { contactsRpc } from "@mailroom/contracts";
import { type Clock, iso, type Logger, Periodic, type RpcClient, type Sql } from "@mailroom/kit";
import { Cron } from "croner";
import type { WorkflowRow } from "../db/rows.js";
import { workflowsRepo } from "../db/workflows-repo.js";
import type { Starter } from "../engine/starter.js";

const PAGE = 500;

/**
 * SCHEDULE triggers. Every replica looks for due ticks; the one whose INSERT of (workflow, tick)
 * succeeds runs it, so each tick starts its audience exactly once however many replicas there are.
 * A tick is due once it passed and is later than both the last look and the workflow's last change
 * (a tick missed while every replica was down for longer than `catchUpMs` is skipped, not replayed).
 * A project's ticks follow its clock (`Clock`: the real time, or a test's per-project time under
 * TEST_CLOCK_DIR, which moves the window the way that project's clock was moved).
 */
export class Scheduler {
  private readonly loop: Periodic;
  private lastLook: Date;

  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly starter: Starter,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly opts: { intervalMs: number; catchUpMs?: number },
  ) {
    this.lastLook = new Date(Date.now() - (opts.catchUpMs ?? 60_000));
    this.loop = new Periodic({ name: "schedule check", everyMs: opts.intervalMs, log, run: () => this.tick() });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async tick(): Promise<void> {
    const now = new Date();
    const since = this.lastLook;
    for (const w of await workflowsRepo.scheduled(this.sql)) {
      const offset = this.clock.offsetMs(w.project_id);
      const from = Math.max(since.getTime() + offset, w.updated_at.getTime());
      const tick = lastTickBetween(w, new Date(from), new Date(now.getTime() + offset));
      if (tick && (await workflowsRepo.claimTick(this.sql, w.id, tick))) {
        await this.run(w, tick).catch((err) => this.log.error({ err, workflowId: w.id }, "schedule tick failed"));
      }
    }
    this.lastLook = now;
  }

  /** Starts an execution for every subscribed contact of the segment (or of the project). */
  private async run(w: WorkflowRow, tick: Date): Promise<void> {
    const { segmentId } = w.trigger_config as { segmentId?: string };
    let afterId: string | undefined;
    let total = 0;
    do {
      const page = await this.rpc.call(
        contactsRpc.page,
        { projectId: w.project_id, limit: PAGE, subscribedOnly: true, ...(segmentId ? { segmentId } : {}), ...(afterId ? { afterId } : {}) },
        { timeoutMs: 30_000 },
      );
      if (page.contacts.length) {
        // the engine runs what it is handed at once; the next page waits until it has room
        await this.starter.room();
        const started = await this.starter.start({
          projectId: w.project_id,
          workflowId: w.id,
          contactIds: page.contacts.map((c) => c.id),
          context: { event: { scheduledAt: iso(tick) } },
          triggerKey: `schedule:${iso(tick)}`,
          accepts: (row) => row.enabled && row.trigger_type === "SCHEDULE",
        });
        total += started?.length ?? 0;
      }
      afterId = page.nextAfterId ?? undefined;
    } while (afterId);
    this.log.info({ workflowId: w.id, tick: iso(tick), started: total }, "schedule tick ran");
  }
}

/** The latest tick of the workflow's cron in (from, to], or null. */
export function lastTickBetween(w: Pick<WorkflowRow, "trigger_config">, from: Date, to: Date): Date | null {
  const { cron, timezone } = w.trigger_config as { cron: string; timezone?: string };
  const job = new Cron(cron, { timezone, paused: true });
  let last: Date | null = null;
  for (let next = job.nextRun(from); next && next <= to; next = job.nextRun(next)) last = next;
  job.stop();
  return last;
}
