import { defineConfig } from "vitest/config";

/**
 * `npm run test:faults`: the fault suite alone. No global setup (each file runs a platform of its
 * own, on servers of its own where it kills them), two files at a time: a fault file spends most
 * of its time waiting (on a kill's lease running out, a restart, a 30 s outage), and one at a time
 * left the cores idle for most of the suite's five minutes. Not three: with npm test's benchmark
 * smoke runs beside them, six platforms at once reached PostgreSQL's 100 connections. The longest
 * file, nats-cluster, starts first either way (vitest runs the slowest it has timed first, and the
 * largest on a fresh clone).
 */
export default defineConfig({
  test: {
    include: ["packages/faults/test/**/*.test.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 2 } },
    // One worker per fork for its files, not a fresh process (and a fresh import of the kit) per file.
    isolate: false,
    // A fault test kills and restarts servers on a shared 2-core machine; one retry absorbs a slow
    // restart, while a real loss or duplicate fails both attempts.
    retry: 1,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});
