#!/usr/bin/env node
// `npm run bench -- <name> [<name>…]` runs those benchmarks (all when none is named), each in its
// own process, then collects bench/results/*.md into bench/results/latest.md.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

/** Modules of bench/ that other benchmarks run or import: not benchmarks themselves (hop and baseline serve until stopped). */
const HELPERS = ["lib.mjs", "responder.mjs", "hop.mjs", "sink.mjs", "baseline.mjs", "dashboard-canvas.mjs"];
const all = readdirSync("bench").filter((f) => f.endsWith(".mjs") && !HELPERS.includes(f)).map((f) => f.slice(0, -4));
const names = process.argv.slice(2).length ? process.argv.slice(2) : all;
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`no benchmark "${name}"; have: ${all.join(", ")}`);
    process.exit(2);
  }
}
const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { stdio: "inherit" });
if (build.status !== 0) process.exit(1);
let failed = false;
for (const name of names) {
  console.log(`\n== ${name}`);
  const r = spawnSync(process.execPath, [`bench/${name}.mjs`], { stdio: "inherit" });
  if (r.status !== 0) failed = true;
}
const parts = all.filter((n) => existsSync(`bench/results/${n}.md`)).map((n) => readFileSync(`bench/results/${n}.md`, "utf8"));
writeFileSync("bench/results/latest.md", `# Benchmark results\n\nReproduce with \`npm run bench\` (or \`npm run bench -- <name>\`).\n\n${parts.join("\n")}`);
process.exit(failed ? 1 : 0);
