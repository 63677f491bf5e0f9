import { type Logger, Periodic, type Sql } from "@mailroom/kit";
import { dueRepo, type DueRow } from "../db/members-repo.js";
import type { MembershipTracker } from "./tracker.js";

const BATCH = 200;
/** How long a claimed row stays hidden from other replicas; far above one evaluation. */
const LEASE_MS = 30_000;
const PARALLEL = 4;

/**
 * Keeps relative-time filters (`within`, `triggeredWithin`, `olderThan`, …) true as time passes.
 * Each tick takes the `segment_due` rows whose time has come (only contacts at a boundary, never a
 * scan of the project) and re-evaluates those contacts; the evaluation stores the next boundary or
 * removes the row. Replicas share the work through row claims, not through memory.
 */
export class DueScheduler {
  private readonly loop: Periodic;

  constructor(
    private readonly sql: Sql,
    private readonly tracker: MembershipTracker,
    private readonly log: Logger,
    tickMs: number,
  ) {
    this.loop = new Periodic({ name: "segment due-time tick", everyMs: tickMs, log, run: (signal) => this.tick(signal) });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Works through everything due now, a batch at a time, until `signal` (the loop's stop) aborts. */
  private async tick(signal: AbortSignal): Promise<void> {
    let claimed: DueRow[];
    do {
      claimed = await dueRepo.claim(this.sql, BATCH, LEASE_MS);
      const byContact = new Map<string, { projectId: string; segmentIds: string[] }>();
      for (const row of claimed) {
        const entry = byContact.get(row.contact_id) ?? { projectId: row.project_id, segmentIds: [] };
        entry.segmentIds.push(row.segment_id);
        byContact.set(row.contact_id, entry);
      }
      const work = [...byContact];
      const next = async (): Promise<void> => {
        for (let item = work.shift(); item; item = work.shift()) {
          const [contactId, { projectId, segmentIds }] = item;
          // a failure leaves the claimed rows to come due again when the lease runs out
          await this.tracker
            .onDue(projectId, contactId, segmentIds)
            .catch((err) => this.log.warn({ err: String(err), contactId }, "segment due-time evaluation failed"));
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, next));
    } while (claimed.length === BATCH && !signal.aborted);
  }
}
