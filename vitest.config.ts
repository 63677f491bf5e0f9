import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongFirst from "./test/sequencer.js";

const root = fileURLToPath(new URL(".", import.meta.url));

// The fault suite restarts servers of its own and loads the machine alone: `npm run test:faults`
// (run by `npm test` after this suite, one file at a time).
const exclude = ["**/node_modules/**", "**/dist/**", "packages/faults/**"];

export default defineConfig({
  test: {
    pool: "forks",
    // Platform files (forks) share two long-lived workers instead of a fresh process each: importing
    // vitest, the kit, the contracts and zod again for each of ~100 files cost about a second of CPU
    // a file, on a machine whose two cores also run the platform (the contacts and verify files: 87 s
    // isolated, 63 s shared). No test file mocks modules, stubs globals or keeps state in a shared
    // helper, which is what sharing would break; what the testkit keeps on purpose (a worker's
    // connection to the gateway's database and its Chromium, packages/testkit/src/worker.ts) carries
    // no test's state. Unit files (threads) share their threads too, each file with the project's
    // own modules evaluated afresh (test/unit-setup.ts): a fresh thread per file imported zod,
    // liquidjs and the rest again, 36 of the unit stage's 40 s on a slow 2-core machine (11 s now);
    // a shuffled file order passes, where sharing modules as well failed on some orders. vitest 3.2
    // takes `isolate` per pool, not per project, hence a pool each.
    // Three platform workers on two cores: most of a platform file's time is spent waiting on the
    // platform (a consumer's batch, a page's render), and with two workers the machine sat half idle
    // (the platform phase: 476 s with two, 376 s with three, the cores 87% busy). As many kept as
    // started: a worker retired as idle while vitest hands it a file fails the run with tinypool's
    // "Terminating worker thread".
    poolOptions: { forks: { maxForks: 3, minForks: 3, isolate: false }, threads: { maxThreads: 2, minThreads: 1, isolate: false } },
    // The longest files first even on a checkout that has never timed them (see the file).
    sequence: { sequencer: LongFirst },
    // A backstop, not a bound: every wait inside a test has its own limit and names what it waited
    // for. Multi-step tests on a loaded 2-core CI machine have run to three times their quiet duration.
    testTimeout: 60_000,
    // expect.poll's own default gives up after one second: a page's next render or a consumer's next
    // batch on a loaded 2-core machine takes longer than that, and the test failed on the load, not
    // on the app. A poll still ends as soon as its condition holds.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    hookTimeout: 90_000,
    teardownTimeout: 60_000,
    projects: [
      {
        extends: true,
        // Rules beside the code (`src/**/*.test.ts`): no servers, seconds (`npm run test:unit`).
        test: { name: "unit", include: ["packages/*/src/**/*.test.ts", "services/*/src/**/*.test.ts"], exclude, pool: "threads", setupFiles: ["./test/unit-setup.ts"] },
        // Workspace packages from their sources, so the unit tests need no build either.
        resolve: { alias: [{ find: /^@mailroom\/([a-z]+)$/, replacement: `${root}packages/$1/src/index.ts` }] },
      },
      {
        extends: true,
        test: {
          name: "platform",
          include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "deploy/**/*.test.ts"],
          exclude,
          // One real platform (all six services, an SMTP sink, a DNS server) per run; see the file.
          globalSetup: ["./test/global-setup.ts"],
        },
      },
    ],
  },
});
