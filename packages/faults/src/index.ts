export * from "./servers.js";
export * from "./cluster.js";
export * from "./rig.js";
export * from "./sink.js";
export * from "./seed.js";
export * from "./load.js";
