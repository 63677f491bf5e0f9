#!/usr/bin/env node
// The `mailroom` command (`npx mailroom …`). npm links a package's bins when it installs, before
// anything is built, so the bin must be a file the repository holds: this one. It runs the compiled
// CLI, building the gateway and the packages it uses first when a fresh clone has no build yet.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  process.stderr.write("mailroom: first run on this checkout, building the CLI…\n");
  const built = spawnSync("npx", ["turbo", "run", "build", "--filter=@mailroom/gateway...", "--output-logs=errors-only"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (built.status !== 0 || !existsSync(cli)) {
    process.stderr.write("mailroom: the build failed; run `npm run build` from the repository root to see why\n");
    process.exit(1);
  }
}
await import(cli.href);
