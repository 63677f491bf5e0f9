// Run with `node --test scripts/layers.test.mjs` (after `npm install`). The layering rule of
// docs/architecture.md ("Layers") is biome.json's `noRestrictedImports` per folder; a rule that
// stopped matching (a renamed folder, a glob biome reads differently after an upgrade) would pass
// every file in silence. This lints small handler and domain files with the repository's own
// biome.json and shows it failing the ones that break the layering, and passing the others.
//
// The files are written under a temporary folder laid out as the repository (biome matches the
// overrides by path from the configuration's folder): `biome lint --stdin-file-path` prints no
// diagnostics in biome 2 (it prints the content back and exits 1 even for a clean file), so it
// cannot tell the layering message from any other failure.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const biome = join(root, "node_modules", "@biomejs", "biome", "bin", "biome");

const HANDLER = /^A handler calls use cases \(src\/usecases\), never/;
const DOMAIN = /^domain\/ is pure/;

/** Path (as in the repository) → source. */
const files = {
  "services/sending/src/handlers/reads-repo.ts": `import { emailEventsRepo } from "../db/email-events-repo.js";\nexport const x = emailEventsRepo;\n`,
  "services/sending/src/handlers/opens-db.ts": `import postgres from "postgres";\nexport const x = postgres;\n`,
  "services/sending/src/handlers/calls-usecase.ts": `import { Timelines } from "../usecases/timelines.js";\nexport const x = (t: Timelines) => t;\n`,
  "services/workflows/src/handlers/maps-rows.ts": `import { toWorkflow } from "../db/rows.js";\nexport const x = toWorkflow;\n`,
  "services/sending/src/domain/uses-postgres.ts": `import postgres from "postgres";\nexport const x = postgres;\n`,
  "services/sending/src/domain/reads-repo.ts": `import { emailEventsRepo } from "../db/email-events-repo.js";\nexport const x = emailEventsRepo;\n`,
  "services/sending/src/domain/pure.ts": `import { z } from "zod";\nexport const x = z.string();\n`,
};

/** Each file's error diagnostics: `{ rule, message }`. */
let found;
let dir;

before(() => {
  // real path: biome reports each file by its absolute path, symlinks resolved
  dir = realpathSync(mkdtempSync(join(tmpdir(), "mailroom-layers-")));
  copyFileSync(join(root, "biome.json"), join(dir, "biome.json"));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  // one run for every file (a fraction of a second); the GitHub reporter is one line a diagnostic:
  // ::error title=<rule>,file=<absolute path>,line=…::<message>
  const run = spawnSync(process.execPath, [biome, "lint", "--reporter=github", "--diagnostic-level=error", "services"], { cwd: dir, encoding: "utf8" });
  assert.ok(run.status === 0 || run.status === 1, `biome exited ${run.status}: ${run.stderr}`);
  found = Object.fromEntries(Object.keys(files).map((path) => [path, []]));
  for (const line of run.stdout.split("\n")) {
    const m = /^::error title=([^,]+),file=([^,]+),.*?::(.*)$/.exec(line);
    if (!m) continue;
    const path = relative(dir, m[2]).split(sep).join("/");
    assert.ok(path in found, `a diagnostic for a file not written here: ${line}`);
    found[path].push({ rule: m[1], message: m[3] });
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** The file fails the lint with the layering rule's message, and with nothing else. */
function layering(path, message) {
  assert.equal(found[path].length, 1, `${path}: ${JSON.stringify(found[path])}`);
  assert.equal(found[path][0].rule, "lint/style/noRestrictedImports");
  assert.match(found[path][0].message, message);
}
const clean = (path) => assert.deepEqual(found[path], [], path);

describe("the layering lint (biome.json)", () => {
  it("fails a handler that imports a repository or the database client", () => {
    layering("services/sending/src/handlers/reads-repo.ts", HANDLER);
    layering("services/sending/src/handlers/opens-db.ts", HANDLER);
  });

  it("passes a handler that calls a use case, or maps rows with db/rows.ts", () => {
    clean("services/sending/src/handlers/calls-usecase.ts");
    clean("services/workflows/src/handlers/maps-rows.ts");
  });

  it("fails a domain file that imports postgres or another layer, and passes a pure one", () => {
    layering("services/sending/src/domain/uses-postgres.ts", DOMAIN);
    layering("services/sending/src/domain/reads-repo.ts", DOMAIN);
    clean("services/sending/src/domain/pure.ts");
  });
});
