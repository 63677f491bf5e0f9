// The Node.js version Mailroom needs, stated once: `engines.node` in the root package.json. `npm start`
// and `npm test` check it before anything else (before `npm install`, so Node built-ins only), and
// scripts/engines.test.mjs checks that every installed dependency runs on it.
import { readFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/** `engines.node` is a plain floor (">=20.19"): the one form both this check and npm read alike. */
function floorOf(range) {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`package.json engines.node must read ">=MAJOR.MINOR", not ${JSON.stringify(range)}`);
  return match.slice(1).map((part) => Number(part ?? 0));
}

/** The lowest Node.js version Mailroom runs on, e.g. "20.19.0". */
export const NODE_FLOOR = floorOf(manifest.engines.node).join(".");

/** An Error naming both versions when `version` (default: this process) is below the floor, else null. */
export function nodeVersionProblem(version = process.versions.node) {
  const have = version.split(".").map(Number);
  const need = floorOf(manifest.engines.node);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > need[i]) return null;
    if ((have[i] ?? 0) < need[i]) {
      return new Error(`Mailroom needs Node.js ${NODE_FLOOR} or newer; this is Node.js ${version}. Install a newer Node.js (https://nodejs.org/) and run again.`);
    }
  }
  return null;
}

/** Stops a launcher at once, with the reason, on a Node.js older than the floor. */
export function requireNodeFloor() {
  const problem = nodeVersionProblem();
  if (problem) {
    console.error(problem.message);
    process.exit(1);
  }
}
