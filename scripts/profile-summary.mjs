// node scripts/profile-summary.mjs <file.cpuprofile> [top]: self time per function, heaviest first.
import { readFileSync } from "node:fs";

const [file, top = "30"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const agg = new Map();
for (const [id, us] of self) {
  const f = byId.get(id).callFrame;
  const url = f.url.replace(/^.*node_modules\//, "nm:").replace(/^.*\/(services|packages)\//, "$1/");
  const key = `${f.functionName || "(anon)"} ${url}:${f.lineNumber + 1}`;
  agg.set(key, (agg.get(key) ?? 0) + us);
}
console.log(`total ${(total / 1e6).toFixed(1)} s sampled`);
for (const [k, us] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
}
