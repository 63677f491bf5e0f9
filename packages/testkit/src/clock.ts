import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Sets one project's clock on a platform (the kit's Clock reads it; services pick it up within
 * 0.1 s): from now on that project's time is `at` and runs on at the real pace. Only what reads the
 * kit's Clock follows it (local-time delivery, quiet hours, warm-up days, SCHEDULE ticks). `env`:
 * the platform's (sharedPlatform().env, or Platform.env).
 */
export function setProjectClock(env: Record<string, string>, projectId: string, at: Date): void {
  const dir = env.TEST_CLOCK_DIR;
  if (!dir) throw new Error("this platform has no TEST_CLOCK_DIR");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, projectId), JSON.stringify({ offsetMs: at.getTime() - Date.now() }));
}

/**
 * Sets the project's clock `beforeMs` before its next whole minute, so a `* * * * *` SCHEDULE tick
 * comes within seconds instead of after up to a minute of waiting for the real one.
 */
export function setProjectClockBeforeMinute(env: Record<string, string>, projectId: string, beforeMs = 1500): void {
  setProjectClock(env, projectId, new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000 - beforeMs));
}
