import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, REPO_ROOT, dropDatabases, runPrefix } from "@mailroom/testkit";

// The README's CLI on a clone that has been installed but never built: npm links the bin at
// install time, so it must be a file the repository holds, and it builds what it runs.
const dir = mkdtempSync(join(tmpdir(), "mailroom-clone-"));
const prefix = runPrefix("cli");
const env = { ...process.env, DB_PREFIX: prefix, DATABASE_URL, NODE_ENV: "test", LOG_LEVEL: "silent" };
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

beforeAll(() => {
  execFileSync("git", ["clone", "--quiet", "--depth", "1", `file://${REPO_ROOT}`, dir]);
  // From npm's cache: the suite's own install filled it. No install scripts: the CLI needs no patch.
  sh("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"]);
}, 240_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropDatabases(DATABASE_URL, prefix);
});

describe("npx mailroom on a fresh clone", () => {
  it("builds on first use, migrates and creates a project", () => {
    expect(sh("npx", ["mailroom", "migrate"])).toMatch(/gateway/);
    const project = JSON.parse(sh("npx", ["mailroom", "projects", "create", "--name", "Clone", "--json"]));
    expect(project).toMatchObject({ name: "Clone", secretKey: expect.stringMatching(/^sk_/), publicKey: expect.stringMatching(/^pk_/) });
  }, 240_000);
});
