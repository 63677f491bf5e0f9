import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take a minute or more for reasons their size does not show (a fresh clone installed
 * and built, campaigns of thousands, a cron minute to wait for, a tour of every dashboard page).
 * vitest runs the files it has timed before longest first, but on a checkout with no timings yet (a
 * fresh clone in CI) it runs larger files first, which left the fresh-clone test (2 KB, two to three
 * minutes) to run alone at the end while the other worker idled. Without timings these go first;
 * with them this list changes nothing.
 */
const LONG = [
  "services/gateway/test/cli-fresh-clone.test.ts",
  "packages/dashboard/test/browser/a11y-phone.test.ts",
  "packages/dashboard/test/browser/a11y.test.ts",
  "services/campaigns/test/crash.test.ts",
  "services/campaigns/test/fairness.test.ts",
  "services/workflows/test/durability.test.ts",
  "services/workflows/test/shutdown.test.ts",
  "services/campaigns/test/ab-crash.test.ts",
  "packages/dashboard/test/browser/workflows.test.ts",
];

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const key = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`;
    if (sorted.some((f) => this.ctx.cache.getFileTestResults(key(f)))) return sorted;
    const rank = (f: TestSpecification) => {
      const i = LONG.findIndex((l) => f.moduleId.endsWith(l));
      return i < 0 ? LONG.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
