#!/usr/bin/env node
// `npm run bench -- <name> [<name>…]` runs those benchmarks (all when none is named), each in its
// own process, then collects bench/results/*.md into bench/results/latest.md.
// `--smoke` runs them at tiny sizes (BENCH_SMOKE=1, bench/lib.mjs), to show each still starts and
// finishes: `npm test` does so after the suite. `--no-build` skips the build (the caller built).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

/**
 * Smoke runs that take longest (restarts of a scaled-out platform, a browser, a campaign to deliver),
 * longest first (as measured in the suite); the rest follow in name order.
 */
const SLOW_SMOKES = ["dashboard", "fairness", "campaign", "send", "relay", "engagement", "gateway", "segments"];
const smokeRank = (name) => (SLOW_SMOKES.includes(name) ? SLOW_SMOKES.indexOf(name) : SLOW_SMOKES.length);

/** Modules of bench/ that other benchmarks run or import: not benchmarks themselves (hop and baseline serve until stopped). */
const HELPERS = ["lib.mjs", "responder.mjs", "hop.mjs", "sink.mjs", "webhook-receiver.mjs", "baseline.mjs", "dashboard-canvas.mjs", "dashboard-stats.mjs"];
const all = readdirSync("bench").filter((f) => f.endsWith(".mjs") && !HELPERS.includes(f)).map((f) => f.slice(0, -4));
const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith("--")));
const given = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const smoke = flags.has("--smoke");
const names = given.length ? given : all;
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`no benchmark "${name}"; have: ${all.join(", ")}`);
    process.exit(2);
  }
}
if (!flags.has("--no-build")) {
  const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(1);
}
const env = { ...process.env, ...(smoke ? { BENCH_SMOKE: "1" } : {}) };
if (smoke) {
  // Smoke runs mostly wait (services starting, databases dropped): a few at a time take a third of
  // the time. Each one's output is kept and shown only when it fails.
  const jobs = Number(process.env.BENCH_SMOKE_JOBS ?? 3);
  // the longest first, so the last to finish is a short one and no job idles while one runs long
  const queue = [...names].sort((a, b) => smokeRank(a) - smokeRank(b));
  const failed = [];
  const took = [];
  const runOne = (name) =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn(process.execPath, [`bench/${name}.mjs`], { stdio: ["ignore", "pipe", "pipe"], env });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      child.on("close", (code) => {
        took.push(`${name} ${((Date.now() - started) / 1000).toFixed(0)} s`);
        if (code !== 0) failed.push({ name, output });
        resolve();
      });
    });
  await Promise.all(Array.from({ length: jobs }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) await runOne(name);
  }));
  console.log(`benchmark smoke runs (${names.length}, ${jobs} at a time): ${took.join(", ")}`);
  for (const f of failed) console.error(`\n== ${f.name} did not finish (run it alone: BENCH_SMOKE=1 node bench/${f.name}.mjs)\n${f.output.slice(-4000)}`);
  process.exit(failed.length ? 1 : 0);
}
const failed = [];
for (const name of names) {
  console.log(`\n== ${name}`);
  const r = spawnSync(process.execPath, [`bench/${name}.mjs`], { stdio: "inherit", env });
  if (r.status !== 0) failed.push(name);
}
const parts = all.filter((n) => existsSync(`bench/results/${n}.md`)).map((n) => readFileSync(`bench/results/${n}.md`, "utf8"));
writeFileSync("bench/results/latest.md", `# Benchmark results\n\nReproduce with \`npm run bench\` (or \`npm run bench -- <name>\`).\n\n${parts.join("\n")}`);
process.exit(failed.length ? 1 : 0);
