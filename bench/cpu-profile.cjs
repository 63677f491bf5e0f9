// Preloaded by BENCH_PROFILE (NODE_OPTIONS=--require): V8 refuses --cpu-prof in NODE_OPTIONS, so the
// profiler is driven through the inspector. Same-thread inspector sessions answer synchronously,
// which is what lets the profile be written from the 'exit' handler. BENCH_PROFILE_KIND chooses:
// - cpu (default): a .cpuprofile;
// - heap: a .heapprofile of allocations, keeping the objects GCs already collected: a busy
//   service's garbage is what its GC time is spent on;
// - promoted: a .heapprofile of what survived the young generation, the garbage full GCs mark;
// - gc: a .gc.json of how many young and full collections ran and how long they paused.
const inspector = require("node:inspector");
const { PerformanceObserver, constants } = require("node:perf_hooks");
const { mkdirSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const dir = process.env.BENCH_PROFILE_DIR ?? ".mailroom/profiles";
const kind = process.env.BENCH_PROFILE_KIND || "cpu";
const file = (ext) => join(dir, `${process.env.MAILROOM_SERVICE ?? "node"}-${process.pid}.${ext}`);
const write = (ext, data) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(file(ext), JSON.stringify(data));
};

if (kind === "gc") {
  const names = { [constants.NODE_PERFORMANCE_GC_MAJOR]: "full", [constants.NODE_PERFORMANCE_GC_MINOR]: "young", [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental", [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak" };
  const stats = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const s = (stats[names[e.detail.kind] ?? "other"] ??= { count: 0, pauseMs: 0 });
      s.count++;
      s.pauseMs += e.duration;
    }
  }).observe({ entryTypes: ["gc"] });
  process.on("exit", () => write("gc.json", { stats, memory: process.memoryUsage() }));
} else {
  const session = new inspector.Session();
  session.connect();
  if (kind === "cpu") {
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 500 });
    session.post("Profiler.start");
  } else {
    session.post("HeapProfiler.enable");
    session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: kind === "heap" });
  }
  process.on("exit", () => {
    const [method, ext] = kind === "cpu" ? ["Profiler.stop", "cpuprofile"] : ["HeapProfiler.stopSampling", "heapprofile"];
    session.post(method, (err, res) => {
      if (!err) write(ext, res.profile);
    });
  });
}
