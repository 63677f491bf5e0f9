export * from "./http.js";
