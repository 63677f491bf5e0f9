// node scripts/profile-summary.mjs <file.cpuprofile|file.heapprofile> [top]: self time (or bytes
// allocated) per function, heaviest first.
import { readFileSync } from "node:fs";

const [file, top = "30"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const agg = new Map();
const add = (f, amount) => {
  const url = f.url.replace(/^.*node_modules\//, "nm:").replace(/^.*\/(services|packages)\//, "$1/");
  const key = `${f.functionName || "(anon)"} ${url}:${f.lineNumber + 1}`;
  agg.set(key, (agg.get(key) ?? 0) + amount);
};
let unit;
if (profile.head) {
  // Heap profile: a tree of call frames, each with the bytes sampled as allocated there.
  unit = "MB allocated";
  const walk = (n) => {
    add(n.callFrame, n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
} else {
  unit = "s sampled";
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  for (const [i, id] of profile.samples.entries()) add(byId.get(id).callFrame, dt[i] ?? 0);
}
const total = [...agg.values()].reduce((a, b) => a + b, 0);
console.log(`total ${(total / 1e6).toFixed(1)} ${unit}`);
for (const [k, amount] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(`${((amount / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
}
