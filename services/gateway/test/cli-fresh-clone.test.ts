import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, REPO_ROOT, dropDatabases, runPrefix } from "@mailroom/testkit";

// The README's CLI on a clone that has been installed but never built: npm links the bin at
// install time, so it must be a file the repository holds, and it builds what it runs.
const dir = mkdtempSync(join(tmpdir(), "mailroom-clone-"));
const prefix = runPrefix("cli");
// Asynchronous, so the test worker keeps answering vitest while npm and the build run.
const run = promisify(execFile);
/**
 * This checkout's turbo cache (a worktree's is its main checkout's). The clone's build goes through
 * it as any build does: a package whose inputs (its tracked sources, config and lockfile) are the
 * ones this checkout built is restored, not compiled a second time (two minutes of tsc on a loaded
 * 2-core worker), and one that differs is built. That `npm test`'s own build compiles a clean tree
 * is shown by that build; what this file shows is that the bin builds what it runs and runs it.
 */
const commonDir = (await run("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: REPO_ROOT, encoding: "utf8" })).stdout.trim();
const env = { ...process.env, DB_PREFIX: prefix, DATABASE_URL, NODE_ENV: "test", LOG_LEVEL: "silent", TURBO_CACHE_DIR: join(dirname(commonDir), ".turbo", "cache") };
const sh = async (cmd: string, args: string[], cwd = dir) => (await run(cmd, args, { cwd, env, encoding: "utf8" })).stdout;

/** This checkout's installed trees: the root's and the workspaces' own. */
const installed = ["", ...["packages", "services"].flatMap((d) => readdirSync(join(REPO_ROOT, d)).map((w) => join(d, w)))].filter((w) => existsSync(join(REPO_ROOT, w, "node_modules")));

beforeAll(async () => {
  await sh("git", ["clone", "--quiet", "--depth", "1", `file://${REPO_ROOT}`, dir], REPO_ROOT);
  // The tree `npm install` lays out, as this checkout's install laid it out: hard links, not a second
  // install from npm's cache (a minute of a loaded worker). npm's links are relative (the bin to
  // ../@mailroom/gateway/bin, the workspaces to ../../packages/…), so in the copy they resolve inside
  // the clone, whose packages have never been built.
  for (const w of installed) await sh("cp", ["-al", join(REPO_ROOT, w, "node_modules"), join(dir, w, "node_modules")]);
}, 240_000);
// The clone holds a whole node_modules (57,000 files): removing it took the worker over a minute on a
// loaded machine (rmSync blocked it past the hook's bound and vitest's own calls to it). Nothing else
// uses the directory, so an `rm` of its own removes it while the next test file runs.
afterAll(async () => {
  spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" }).unref();
  await dropDatabases(DATABASE_URL, prefix);
});

describe("npx mailroom on a fresh clone", () => {
  it("builds on first use, migrates and creates a project", async () => {
    expect(await sh("npx", ["mailroom", "migrate"])).toMatch(/gateway/);
    const project = JSON.parse(await sh("npx", ["mailroom", "projects", "create", "--name", "Clone", "--json"]));
    expect(project).toMatchObject({ name: "Clone", secretKey: expect.stringMatching(/^sk_/), publicKey: expect.stringMatching(/^pk_/) });
  }, 240_000);
});
