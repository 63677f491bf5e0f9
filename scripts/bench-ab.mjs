// Back-to-back comparison of two builds on one machine: the working tree and a commit built in a
// worktree of its own (<tmpdir>/mailroom-compare/<sha>, outside the checkout so no tool of this one
// reads it), their benchmarks run in alternated rounds so a neighbour's busy spell never falls on
// one side only. Used by bench:compare and bench:guard.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export const ROOT = resolve(new URL("..", import.meta.url).pathname);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.status !== 0) throw new Error(`\`${cmd} ${args.join(" ")}\` failed in ${opts.cwd ?? ROOT}`);
}

/** The full id of a revision of this repository. */
export function commitOf(rev) {
  const r = spawnSync("git", ["rev-parse", "--verify", `${rev}^{commit}`], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`no commit "${rev}" in this repository (a shallow clone? git fetch --unshallow)`);
  return r.stdout.trim();
}

/**
 * A built checkout of `sha` beside this one, made once and reused: a detached worktree, its own
 * node_modules (its dependencies may differ) and its build. A build that did not finish is redone.
 */
export function builtTree(sha) {
  const dir = join(tmpdir(), "mailroom-compare", sha.slice(0, 12));
  const done = join(dir, ".mailroom-built");
  if (existsSync(done)) return dir;
  if (existsSync(dir)) {
    spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: ROOT });
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(join(tmpdir(), "mailroom-compare"), { recursive: true });
  spawnSync("git", ["worktree", "prune"], { cwd: ROOT });
  run("git", ["worktree", "add", "--detach", dir, sha], { cwd: ROOT });
  console.log(`building ${sha.slice(0, 12)} in ${dir}…`);
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir });
  run("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { cwd: dir });
  spawnSync("touch", [done]);
  return dir;
}

/**
 * One benchmark run in `dir` (its own bench script, so each side measures itself with its own
 * baseline), its JSON result read back. `resultsDir`: where a tree that knows BENCH_RESULTS_DIR
 * writes (older commits write bench/results in their own worktree, which is read instead).
 */
export function runBench(dir, name, env, resultsDir) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [`bench/${name}.mjs`], {
      cwd: dir,
      env: { ...process.env, ...env, BENCH_RESULTS_DIR: resultsDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`bench ${name} in ${dir} exited ${code}:\n${output.slice(-3000)}`));
      const file = [join(dir, resultsDir, `${name}.json`), join(dir, "bench", "results", `${name}.json`)].find((f) => existsSync(f));
      if (!file) return reject(new Error(`bench ${name} in ${dir} wrote no result`));
      resolvePromise(JSON.parse(readFileSync(file, "utf8")));
    });
  });
}

const cpu = (r, path, proc) => path.split(".").reduce((o, k) => o?.[k], r)?.[proc];

/**
 * The figures compared, per benchmark: name, how to read it from a result (either release's JSON),
 * and whether higher is better. Throughputs first: they are what a guard fails on.
 */
export const FIGURES = {
  campaign: [
    ["campaign emails/s", (r) => r.mailroom?.emailsPerSec, true],
    ["campaign / bare nodemailer (same run)", (r) => r.ratio, true],
    ["two sending replicas emails/s", (r) => r.scaledOut?.emailsPerSec, true],
    ["two replicas / one", (r) => (r.scaledOut && r.mailroom ? r.scaledOut.emailsPerSec / r.mailroom.emailsPerSec : undefined), true],
    ["first email ms", (r) => r.mailroom?.firstEmailMs, false],
    ...["sending", "postgres", "nats", "contacts", "campaigns"].map((p) => [`CPU ms/email: ${p}`, (r) => cpu(r, "cpuMsPerEmail", p), false]),
  ],
  send: [
    ["send delivery emails/s", (r) => r.delivery?.perSecond, true],
    ["send delivery / bare nodemailer (same run)", (r) => (r.delivery && r.bareNodemailer ? r.delivery.perSecond / r.bareNodemailer.perSecond : undefined), true],
    ["/v1/send accepted req/s", (r) => r.gateway?.rps, true],
    ["/v1/send accepted / bare route (same run)", (r) => r.gateway?.ratio, true],
    ...["sending", "postgres", "nats"].map((p) => [`delivery CPU ms/email: ${p}`, (r) => cpu(r, "delivery.cpuMsPerEmail", p), false]),
  ],
  contacts: [
    ["/v1/track req/s", (r) => r.track?.requestsPerSec, true],
    ["/v1/track / bare route (same run)", (r) => r.track?.ratio, true],
    ["contacts search p50 ms", (r) => r.search?.p50Ms, false],
  ],
  gateway: [
    ["gateway req/s", (r) => r.gateway?.requestsPerSec, true],
    ["gateway / bare fastify (same run)", (r) => r.ratio, true],
  ],
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs each benchmark `rounds` times on each side, alternating which side goes first, and returns
 * every figure's medians, its ratio (tree / base) and the spread of the per-round ratios, with the
 * runs themselves (`results`): passed back in, they are extended by `rounds` more rounds, the order
 * carrying on where it stopped, so a guard can look again before it fails.
 */
export async function compare({ base, tree = ROOT, benches, rounds, env = {}, log = console.log, results }) {
  const runs = results ?? Object.fromEntries(benches.map((b) => [b, { base: [], tree: [] }]));
  const done = runs[benches[0]].base.length;
  for (let round = done; round < done + rounds; round++) {
    for (const bench of benches) {
      const order = round % 2 === 0 ? ["base", "tree"] : ["tree", "base"];
      for (const side of order) {
        const busy = await busyNeighbours();
        if (busy.length > 0) log(`  (busy beside the run: ${busy.join(", ")})`);
        const started = Date.now();
        const r = await runBench(side === "base" ? base : tree, bench, env[bench] ?? {}, join(".mailroom", "compare-results", side));
        runs[bench][side].push(r);
        log(`round ${round + 1}/${done + rounds} ${bench} ${side}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
    }
  }
  const rows = [];
  for (const bench of benches) {
    for (const [figure, read, higherBetter] of FIGURES[bench] ?? []) {
      const b = runs[bench].base.map(read);
      const t = runs[bench].tree.map(read);
      if (b.some((v) => typeof v !== "number") || t.some((v) => typeof v !== "number")) continue;
      const perRound = t.map((v, i) => (b[i] === 0 ? Number.NaN : v / b[i]));
      rows.push({
        bench,
        figure,
        higherBetter,
        base: median(b),
        tree: median(t),
        ratio: median(t) / median(b),
        spread: [Math.min(...perRound), Math.max(...perRound)],
      });
    }
  }
  return { rows, results: runs };
}

/**
 * Processes other than this run's own that used more than a fifth of a core over the last half
 * second: a figure taken beside them is not a figure, and a guard's verdict should say so.
 */
export async function busyNeighbours() {
  // bench/lib.mjs loads the built testkit, which exists only once the caller has built
  const { cpuSeconds } = await import("../bench/lib.mjs");
  const ours = new Set([process.pid, process.ppid]);
  const sample = () => new Map(readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map((pid) => [Number(pid), cpuSeconds(pid)]));
  const first = sample();
  await sleep(500);
  const busy = [];
  for (const [pid, seconds] of sample()) {
    const used = seconds - (first.get(pid) ?? Number.NaN);
    if (!ours.has(pid) && used >= 0.1) busy.push(`${commandOf(pid)} (pid ${pid}, ${Math.round(used * 200)}% of a core)`);
  }
  return busy;
}

function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "a process now gone";
  }
}

const fmt = (v) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en") : v.toFixed(2));

/** The comparison as a markdown table. */
export function table(rows, baseName, treeName = "working tree") {
  return [
    `| benchmark | figure | ${baseName} | ${treeName} | ratio | per-round ratios |`,
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.bench} | ${r.figure}${r.higherBetter ? "" : " (lower is better)"} | ${fmt(r.base)} | ${fmt(r.tree)} | **${r.ratio.toFixed(2)}** | ${r.spread[0].toFixed(2)}–${r.spread[1].toFixed(2)} |`),
  ].join("\n");
}
