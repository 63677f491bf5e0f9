#!/usr/bin/env node
// `npm test`: on a fresh clone, install what is missing, make sure NATS (JetStream), PostgreSQL and
// Redis answer (bringing them up on Debian as root), build, then run the whole suite against them.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { ensureInfra } from "./infra.mjs";
import { ensureChromium } from "./browser.mjs";
import { requireNodeFloor } from "./node-version.mjs";

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

requireNodeFloor();
if (!existsSync("node_modules/.package-lock.json")) run("npm", ["install", "--no-audit", "--no-fund"]); // not `npm ci`: npm 11 here writes lockfiles without other platforms' optional deps
try {
  await ensureInfra({
    natsUrl: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    databaseUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  });
  await ensureChromium();
} catch (err) {
  console.error(String(err.message ?? err));
  process.exit(1);
}
run("npx", ["turbo", "run", "build", "--output-logs=errors-only"]);
// The whole tree in one biome run (biome.json names the files): a second or two, where a run per
// workspace (`turbo run lint`) started biome and scanned the project for import cycles 14 times.
run("npx", ["biome", "lint", "--diagnostic-level=error", "."]);
run("node", ["--test", "scripts/infra.test.mjs", "scripts/engines.test.mjs", "scripts/layers.test.mjs"]);
// The whole suite: the rules beside the code first, on their own, then the platform. Some unit tests
// bound a render's time; beside the platform's processes and Chromium they measured the load instead.
if (process.argv.length <= 2) {
  run("npx", ["vitest", "run", "--project", "unit"]);
  run("npx", ["vitest", "run", "--project", "platform"]);
} else {
  run("npx", ["vitest", "run", ...process.argv.slice(2)]);
}
// The fault suite (kill -9, NATS/PostgreSQL restarts, Redis down, SIGTERM) on servers of its own,
// two files at a time, after the main suite: mostly waiting on its kills and restarts, the cores
// idle. Every benchmark at a tiny size (bench/lib.mjs SMOKE) runs beside it, at the lowest CPU
// priority, so it takes only what the fault tests leave: a benchmark that can no longer start fails
// the suite instead of rotting until someone runs it. Both skipped when a subset was asked for.
if (process.argv.length <= 2) {
  const [faults, smoke] = await Promise.all([
    runAsync("npx", ["vitest", "run", "--config", "packages/faults/vitest.config.ts"]),
    // at the lowest priority a smoke's services may wait minutes for CPU before they are ready
    runAsync("nice", ["-n", "19", "node", "scripts/bench.mjs", "--smoke", "--no-build"], { quiet: true, env: { ...process.env, PLATFORM_READY_TIMEOUT_MS: "240000" } }),
  ]);
  process.stdout.write(smoke.output);
  if (faults.status !== 0 || smoke.status !== 0) process.exit(faults.status || smoke.status || 1);
}

/** A command run beside another: its exit status, and its output when `quiet` (shown once both end). */
function runAsync(cmd, args, { quiet = false, env = process.env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    child.on("close", (code, signal) => resolve({ status: code ?? (signal ? 1 : 0), output }));
  });
}
