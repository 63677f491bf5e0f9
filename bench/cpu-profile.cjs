// Preloaded by BENCH_PROFILE (NODE_OPTIONS=--require): V8 refuses --cpu-prof in NODE_OPTIONS, so the
// profiler is driven through the inspector. Same-thread inspector sessions answer synchronously,
// which is what lets the profile be written from the 'exit' handler.
const inspector = require("node:inspector");
const { mkdirSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const dir = process.env.BENCH_PROFILE_DIR ?? ".mailroom/profiles";
const session = new inspector.Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.setSamplingInterval", { interval: 500 });
session.post("Profiler.start");
process.on("exit", () => {
  session.post("Profiler.stop", (err, res) => {
    if (err) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${process.env.MAILROOM_SERVICE ?? "node"}-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
  });
});
