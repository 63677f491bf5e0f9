export * from "./records.js";
export * from "./http.js";
