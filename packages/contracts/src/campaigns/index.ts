export * from "./http.js";
export * from "./ab-test.js";
