#!/usr/bin/env node
// `npm run bench:compare -- <rev> [--rounds N] [--only campaign,send,gateway]`: builds <rev> in a
// worktree of its own and runs the campaign, send and gateway benchmarks alternating rounds between
// <rev> and the working tree, then reports each figure's ratio (working tree / <rev>) with the spread
// of its per-round ratios. How every hot-path change is judged (bench/README.md). BENCH_* variables
// pass through to both sides (BENCH_RECIPIENTS=30000 for a shorter campaign). Run it on a quiet
// machine: a figure taken under load is not a figure.
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { builtTree, commitOf, compare, ROOT, table } from "./bench-ab.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: "string", default: "3" }, only: { type: "string", default: "campaign,send,gateway" } },
});
if (positionals.length !== 1) {
  console.error("usage: npm run bench:compare -- <rev> [--rounds N] [--only campaign,send,gateway]");
  process.exit(2);
}
const rev = positionals[0];
// the campaign's cluster row (docs/operations.md) is a figure of its own, not one to compare builds by
process.env.BENCH_CLUSTER ??= "0";
const sha = commitOf(rev);
const benches = values.only.split(",").filter(Boolean);
const rounds = Number(values.rounds);

const build = (await import("node:child_process")).spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) process.exit(1);
const base = builtTree(sha);
const started = Date.now();
const { rows } = await compare({ base, benches, rounds });
const md = [
  `## bench:compare ${rev} (${sha.slice(0, 12)}) against the working tree`,
  "",
  `${new Date().toISOString()}; ${rounds} alternated rounds of ${benches.join(", ")}; ${((Date.now() - started) / 60000).toFixed(0)} min. Ratios are working tree / ${rev} of the medians; higher is better unless marked.`,
  "",
  table(rows, rev),
  "",
].join("\n");
mkdirSync(`${ROOT}/.mailroom`, { recursive: true });
writeFileSync(`${ROOT}/.mailroom/compare-${sha.slice(0, 12)}.md`, md);
console.log(`\n${md}\n(written to .mailroom/compare-${sha.slice(0, 12)}.md)`);
