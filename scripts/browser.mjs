// Chromium for the dashboard's browser tests, screenshots and benchmark: Debian's `chromium`
// package driven by playwright-core (browser downloads are not possible everywhere Mailroom is
// built). `npm test` calls ensureChromium(): on Debian as root it installs the package when it is
// missing, as scripts/infra.mjs does the servers; elsewhere it says exactly what is missing.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function aptGet(args, log) {
  log(`$ apt-get ${args.join(" ")}`);
  return new Promise((resolve, reject) =>
    execFile("apt-get", args, { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      reject(new Error(`\`apt-get ${args.join(" ")}\` failed:\n${`${stdout}${stderr}`.trim().split("\n").slice(-10).join("\n")}`));
    }),
  );
}

export async function ensureChromium({ log = console.log } = {}) {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const debian = existsSync("/etc/debian_version");
  const root = process.getuid?.() === 0;
  if (!debian || !root || process.env.CHROMIUM_PATH) {
    throw new Error(
      `Chromium is not at ${CHROMIUM_PATH}; the dashboard's browser tests need it. ` +
        (debian ? "Install it with `sudo apt-get install -y chromium`" : "Install Chromium") +
        ", or set CHROMIUM_PATH to a Chromium or Chrome binary.",
    );
  }
  log("Installing chromium with apt-get (for the dashboard's browser tests)…");
  const install = ["install", "-y", "--no-install-recommends", "chromium"];
  try {
    await aptGet(install, log);
  } catch {
    await aptGet(["update"], log); // a fresh container has no package lists yet
    await aptGet(install, log);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing`);
  return CHROMIUM_PATH;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(`chromium ${await ensureChromium()}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
