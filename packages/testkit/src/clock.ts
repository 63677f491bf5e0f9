import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Sets one project's clock on a platform (the kit's Clock reads it; services pick it up within
 * 0.1 s): from now on that project's time is `at` and runs on at the real pace. Only local-time
 * delivery and quiet hours read it. `env`: the platform's (sharedPlatform().env, or Platform.env).
 */
export function setProjectClock(env: Record<string, string>, projectId: string, at: Date): void {
  const dir = env.TEST_CLOCK_DIR;
  if (!dir) throw new Error("this platform has no TEST_CLOCK_DIR");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, projectId), JSON.stringify({ offsetMs: at.getTime() - Date.now() }));
}
