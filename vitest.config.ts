import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "packages/*/src/**/*.test.ts",
      "services/*/test/**/*.test.ts",
      "services/*/src/**/*.test.ts",
      "deploy/**/*.test.ts",
    ],
    // The fault suite restarts servers of its own and loads the machine alone: `npm run test:faults`
    // (run by `npm test` after this suite, one file at a time).
    exclude: ["**/node_modules/**", "**/dist/**", "packages/faults/**"],
    // One real platform (all six services, an SMTP sink, a DNS server) per run; see the file.
    globalSetup: ["./test/global-setup.ts"],
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // A backstop, not a bound: every wait inside a test has its own limit and names what it waited
    // for. Multi-step tests on a loaded 2-core CI machine have run to three times their quiet duration.
    testTimeout: 60_000,
    hookTimeout: 90_000,
    teardownTimeout: 60_000,
  },
});
