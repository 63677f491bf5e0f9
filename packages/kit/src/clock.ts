import { readFileSync } from "node:fs";
import { join } from "node:path";

/** How long a project's test clock file is trusted before it is read again. */
const REREAD_MS = 100;

/**
 * The time as the rules that depend on a project's wall clock see it (local-time delivery, quiet
 * hours, warm-up days, SCHEDULE ticks). In production it is the system's. A test sets a project's
 * clock by writing `{"offsetMs": n}` to `<TEST_CLOCK_DIR>/<projectId>` (testkit `setProjectClock`):
 * that project's time then runs n ms ahead (or behind), and only that project's, so test files
 * sharing one platform each set their own. Only what reads this clock moves; leases, timers and the
 * database's now() keep the real time, which is why holds are stored as due instants in the
 * project's time (campaigns) or as real-time timers of the remaining length (workflows).
 */
export class Clock {
  private readonly offsets = new Map<string, { offsetMs: number; readAt: number }>();

  constructor(private readonly testDir?: string) {}

  now(projectId: string): Date {
    return new Date(Date.now() + this.offsetMs(projectId));
  }

  /** How far the project's time runs ahead of the real time (behind when negative); 0 in production. */
  offsetMs(projectId: string): number {
    if (!this.testDir) return 0;
    const hit = this.offsets.get(projectId);
    if (hit && Date.now() - hit.readAt < REREAD_MS) return hit.offsetMs;
    let offsetMs = 0;
    try {
      // a project id is a uuid, so it cannot name a path outside the directory
      if (/^[0-9a-f-]{36}$/i.test(projectId)) offsetMs = Number(JSON.parse(readFileSync(join(this.testDir, projectId), "utf8")).offsetMs) || 0;
    } catch {
      // no file: the project runs on the real time
    }
    this.offsets.set(projectId, { offsetMs, readAt: Date.now() });
    return offsetMs;
  }
}
