// Chromium for the dashboard's browser tests, screenshots and benchmark: Debian's
// `chromium-headless-shell` package driven by playwright-core (browser downloads are not possible
// everywhere Mailroom is built), and the fonts the tests lay pages out with. `npm test` calls ensureChromium(): on Debian
// as root it installs whichever of them is missing, as scripts/infra.mjs does the servers; elsewhere
// it says exactly what is missing.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Chromium's headless shell: the same engine without the browser's windowing layer, which is what
 * Playwright itself runs headless tests in. The dashboard's browser tests took 544 CPU-seconds in it
 * against 933 in the full `chromium` package started with --headless (on a 2-core machine), all 82
 * passing in both. It needs only chromium-common.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell";
export const CHROMIUM_PACKAGE = "chromium-headless-shell";

/**
 * The dashboard ships its own typeface (Inter, docs/dashboard.md "Fonts"); what it does not ship is
 * the monospace face of codes, keys and the template editor, and the fallback of characters Inter
 * lacks. Chromium's Debian package recommends fonts-liberation for exactly this (metric twins of
 * Arial and Courier New, named in Mantine's font stacks), but `--no-install-recommends` skips it,
 * and a machine with only DejaVu lays text out wider: the phone-width test once failed on a fresh
 * machine by 3 px. So the tests' fonts come with the browser, whether or not Chromium was there.
 * The same file is checked by the testkit's launchBrowser (packages/testkit/src/browser.ts).
 */
export const TEST_FONTS_PACKAGE = "fonts-liberation";
export const TEST_FONTS_FILE = "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf";

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
  const debian = existsSync("/etc/debian_version");
  const missing = [];
  // a Chromium named by CHROMIUM_PATH is the caller's to provide; Debian's is installed here
  if (!existsSync(CHROMIUM_PATH)) missing.push(CHROMIUM_PACKAGE);
  if (debian && !existsSync(TEST_FONTS_FILE)) missing.push(TEST_FONTS_PACKAGE);
  if (missing.length === 0) return CHROMIUM_PATH;
  const root = process.getuid?.() === 0;
  if (!debian || !root || (missing.includes(CHROMIUM_PACKAGE) && process.env.CHROMIUM_PATH)) {
    throw new Error(
      missing.includes(CHROMIUM_PACKAGE)
        ? `Chromium is not at ${CHROMIUM_PATH}; the dashboard's browser tests need it. ` +
            (debian ? `Install it with \`sudo apt-get install -y ${missing.join(" ")}\`` : "Install Chromium") +
            ", or set CHROMIUM_PATH to a Chromium or Chrome binary."
        : `The dashboard's browser tests lay pages out with the ${TEST_FONTS_PACKAGE} fonts, which are missing: install them with \`sudo apt-get install -y ${TEST_FONTS_PACKAGE}\`.`,
    );
  }
  log(`Installing ${missing.join(" and ")} with apt-get (for the dashboard's browser tests)…`);
  const install = ["install", "-y", "--no-install-recommends", ...missing];
  try {
    await aptGet(install, log);
  } catch {
    await aptGet(["update"], log); // a fresh container has no package lists yet
    await aptGet(install, log);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get installed ${CHROMIUM_PACKAGE} but ${CHROMIUM_PATH} is still missing`);
  if (debian && !existsSync(TEST_FONTS_FILE)) throw new Error(`apt-get installed ${TEST_FONTS_PACKAGE} but ${TEST_FONTS_FILE} is still missing`);
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
