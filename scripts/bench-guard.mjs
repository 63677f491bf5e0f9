#!/usr/bin/env node
// `npm run bench:guard`: the campaign and send benchmarks, short, in alternated rounds against the
// commit named in bench/guard.json (built in a worktree of its own), failing when either's
// throughput falls more than `tolerance` below that commit's in the same run. `.ci/run` runs it after
// the tests, so a change that makes campaign or transactional delivery slower does not land
// unnoticed. Move the named commit only when a change is meant to move a figure, and say so in
// that commit. BENCH_GUARD_ROUNDS overrides the rounds (an even number puts each side first as
// often); a figure below the floor gets `confirmRounds` more before the guard fails. `--tree <rev>`
// judges that revision, built beside this checkout, instead of the working tree: what the guard
// would say of a build with a slow path put back.
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { builtTree, commitOf, compare, ROOT, table } from "./bench-ab.mjs";

const { values } = parseArgs({ options: { tree: { type: "string" } } });

const guard = JSON.parse(readFileSync(`${ROOT}/bench/guard.json`, "utf8"));
const sha = commitOf(guard.commit);
const rounds = Number(process.env.BENCH_GUARD_ROUNDS ?? guard.rounds);
const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) process.exit(1);
const base = builtTree(sha);
const tree = values.tree ? builtTree(commitOf(values.tree)) : ROOT;
const judged = values.tree ?? "the working tree";
const started = Date.now();
const benches = Object.keys(guard.benches);
const floor = 1 - guard.tolerance;
const below = (rows) => rows.filter((r) => guard.figures.includes(r.figure) && r.ratio < floor);
let { rows, results } = await compare({ base, tree, benches, rounds, env: guard.benches });
// A busy spell on a shared machine can fall on one side's runs; a build that is really slower is
// slower again. Before failing, the guard runs `confirmRounds` more and judges on all of them.
if (below(rows).length > 0 && guard.confirmRounds > 0) {
  console.log(`\n${table(rows, guard.commit.slice(0, 12), judged)}\n\nbench:guard: below the floor after ${rounds} round${rounds === 1 ? "" : "s"}; ${guard.confirmRounds} more before judging`);
  ({ rows, results } = await compare({ base, tree, benches, rounds: guard.confirmRounds, env: guard.benches, results }));
}
const total = results[benches[0]].base.length;
console.log(`\nbench:guard: ${judged} against ${guard.commit.slice(0, 12)} (${total} alternated rounds, ${((Date.now() - started) / 60000).toFixed(1)} min)\n`);
console.log(table(rows, guard.commit.slice(0, 12), judged));
for (const figure of guard.figures) {
  if (!rows.some((r) => r.figure === figure)) {
    console.error(`bench:guard: no figure "${figure}" in the results`);
    process.exit(1);
  }
}
const slower = below(rows);
if (slower.length > 0) {
  for (const r of slower) console.error(`bench:guard: ${r.figure} is ${r.ratio.toFixed(2)} of ${guard.commit.slice(0, 12)}'s (floor ${floor.toFixed(2)})`);
  process.exit(1);
}
console.log(`\nbench:guard: ${guard.figures.join(" and ")} within ${Math.round(guard.tolerance * 100)}% of ${guard.commit.slice(0, 12)} or better.`);
