export * from "./ports.js";
export * from "./wait.js";
export * from "./http.js";
export * from "./cleanup.js";
export * from "./platform.js";
export * from "./dns.js";
export * from "./mailbox.js";
export * from "./drain.js";
