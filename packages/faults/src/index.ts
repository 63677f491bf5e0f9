export * from "./servers.js";
export * from "./rig.js";
export * from "./sink.js";
export * from "./seed.js";
export * from "./load.js";
