import { describe, expect, it } from "vitest";
import { appRelative, safeNext, signInPath } from "./redirect";

describe("where sign-in returns to", () => {
  it("keeps a path inside the app", () => {
    expect(safeNext("/contacts?search=a%20b")).toBe("/contacts?search=a%20b");
  });

  it("refuses anything that could leave the app or loop", () => {
    for (const next of [null, "", "contacts", "//evil.example/x", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "/x\n/y", "/sign-in", "/sign-in?next=/a", "/invite?token=t"]) {
      expect(safeNext(next), String(next)).toBe("/");
    }
  });

  it("builds the sign-in path that comes back", () => {
    expect(signInPath("/contacts/c1?tab=events")).toBe("/sign-in?next=%2Fcontacts%2Fc1%3Ftab%3Devents");
    expect(signInPath("/")).toBe("/sign-in");
    expect(signInPath("//evil.example")).toBe("/sign-in");
  });

  it("strips the /app basename from a browser location", () => {
    expect(appRelative("/app/contacts", "?a=1")).toBe("/contacts?a=1");
    expect(appRelative("/app", "")).toBe("/");
    expect(appRelative("/application", "")).toBe("/application");
  });
});
