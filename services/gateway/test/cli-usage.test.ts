import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "@mailroom/testkit";

// Usage needs no server: the CLI answers before it reads any configuration.
const cli = join(REPO_ROOT, "services", "gateway", "dist", "cli.js");
const mailroom = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "silent" } }, (_err, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });

describe("mailroom usage", () => {
  for (const args of [["--help"], ["-h"], ["help"], ["keys", "--help"]]) {
    it(`\`mailroom ${args.join(" ")}\` prints usage to stdout and exits 0`, async () => {
      const { code, stdout, stderr } = await mailroom(args);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toMatch(/^usage:\n/);
      expect(stdout).toContain("mailroom projects create --name NAME");
    });
  }

  for (const args of [["frobnicate"], ["keys", "frobnicate"], []]) {
    it(`\`mailroom ${args.join(" ") || "(nothing)"}\` prints usage to stderr and exits 2`, async () => {
      const { code, stdout, stderr } = await mailroom(args);
      expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
      expect(stderr).toMatch(/^usage:\n/);
    });
  }
});
