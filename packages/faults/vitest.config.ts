import { defineConfig } from "vitest/config";

/**
 * `npm run test:faults`: the fault suite alone. No global setup (each file runs a platform of its
 * own), one file at a time, because every file loads the 2-core machine on its own.
 */
export default defineConfig({
  test: {
    include: ["packages/faults/test/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    // One worker for all of them, not a fresh process (and a fresh import of the kit) per file.
    isolate: false,
    // A fault test kills and restarts servers on a shared 2-core machine; one retry absorbs a slow
    // restart, while a real loss or duplicate fails both attempts.
    retry: 1,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});
