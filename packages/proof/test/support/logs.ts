import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { REPO_ROOT } from "@mailroom/testkit";
import { openDrain, sharedPlatform } from "@mailroom/testkit/shared";

/**
 * Fails when any service log line of this run holds one of `needles` (API keys, the signing secret,
 * the markers a suite put in the bodies it sent). Each suite calls it last, for its own needles.
 */
export async function expectLogsFreeOf(needles: Record<string, string>): Promise<void> {
  // Every request was answered after its lines were logged; what the requests set off in the
  // background (deliveries, the events they emit) is handled once the consumers are through it. The
  // services write their own files, so a logged line does not wait on the test runner's event loop.
  const drain = await openDrain();
  try {
    const all = await drain.everyConsumer();
    await drain.through(all, all, all);
  } finally {
    await drain.close();
  }
  const { prefix, env } = sharedPlatform();
  const dir = join(REPO_ROOT, ".mailroom", "test-logs", prefix);
  const files = readdirSync(dir).filter((f) => f.endsWith(".log"));
  expect(files.length).toBeGreaterThan(0);
  const all: Record<string, string> = { MAILROOM_SECRET: env.MAILROOM_SECRET!, ...needles };
  for (const file of files) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    for (const [what, needle] of Object.entries(all)) {
      expect(needle.length, `${what} is too short to search for`).toBeGreaterThanOrEqual(8);
      const hit = lines.find((l) => l.includes(needle));
      expect(hit, `${file} logs ${what}: ${hit?.slice(0, 200)}`).toBeUndefined();
    }
  }
}
