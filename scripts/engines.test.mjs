// Run with `node --test scripts/engines.test.mjs` (after `npm install`). The Node.js floor in the
// root package.json must be true: every installed package (package-lock.json lists each one with
// its `engines`) runs on it, so `npm install` on the floor prints no EBADENGINE. A dependency that
// raises its floor fails here; pin the last version that supports ours (root `overrides` when it
// is transitive, see docs/dependencies.md) rather than raising Mailroom's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import semver from "semver";
import { NODE_FLOOR, nodeVersionProblem } from "./node-version.mjs";

const read = (path) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");
const lock = JSON.parse(read("package-lock.json"));

describe("the Node.js floor", () => {
  it("is one every installed package supports", () => {
    // npm's own test (checkEngine): satisfies with prereleases allowed; an unreadable range fails too.
    const excluded = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node && !semver.satisfies(NODE_FLOOR, entry.engines.node, { includePrerelease: true }))
      .map(([path, entry]) => `${path === "" ? "mailroom" : path.replace(/^.*node_modules\//, "")}@${entry.version} wants node ${entry.engines.node}`);
    assert.deepEqual(excluded, [], `Node.js ${NODE_FLOOR} is excluded by`);
  });

  it("is the version the README states", () => {
    const [major, minor] = NODE_FLOOR.split(".");
    assert.match(read("README.md"), new RegExp(`needs Node\\.js ${major}\\.${minor} or newer`));
  });

  it("is what npm start and npm test check", () => {
    assert.equal(nodeVersionProblem(NODE_FLOOR), null);
    assert.equal(nodeVersionProblem("99.0.0"), null);
    const [major, minor] = NODE_FLOOR.split(".").map(Number);
    const below = minor > 0 ? `${major}.${minor - 1}.9` : `${major - 1}.99.0`;
    assert.match(nodeVersionProblem(below)?.message ?? "", new RegExp(`needs Node\\.js ${NODE_FLOOR} or newer; this is Node\\.js ${below.replaceAll(".", "\\.")}`));
  });
});
