// The budget (#27): at most 250 KB gzip of JavaScript before the sign-in page, or the
// contacts page, can render. Follows the build manifest from the entry through each page's static
// imports (what the browser must load first); lazy imports inside a page do not count.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const BUDGET = 250 * 1024;
const dist = new URL("../dist/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL(".vite/manifest.json", dist), "utf8"));

function closure(keys, seen = new Set()) {
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    closure(manifest[key]?.imports ?? [], seen);
  }
  return seen;
}

const gzipped = (key) => gzipSync(readFileSync(new URL(manifest[key].file, dist))).length;
const pages = {
  "sign-in": ["index.html", "src/pages/sign-in/index.tsx"],
  contacts: ["index.html", "src/components/Shell.tsx", "src/pages/contacts/index.tsx"],
};
let over = false;
for (const [page, keys] of Object.entries(pages)) {
  const missing = keys.filter((k) => !manifest[k]);
  if (missing.length) throw new Error(`not in the build manifest: ${missing.join(", ")}`);
  const bytes = [...closure(keys)].reduce((sum, k) => sum + gzipped(k), 0);
  over ||= bytes > BUDGET;
  console.log(`${page}: ${(bytes / 1024).toFixed(1)} KB gzip of initial JavaScript (budget ${BUDGET / 1024} KB)`);
}
if (over) process.exit(1);
