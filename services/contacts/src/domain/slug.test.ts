import { describe, expect, it } from "vitest";
import { slugOf } from "./slug.js";

describe("slugOf", () => {
  it("lower-cases and joins words with hyphens", () => {
    expect(slugOf("Active Pro Users")).toBe("active-pro-users");
    expect(slugOf("  VIP -- customers!  ")).toBe("vip-customers");
    expect(slugOf("plan: pro/2024")).toBe("plan-pro-2024");
  });

  it("drops accents and keeps other scripts", () => {
    expect(slugOf("Café Crème")).toBe("cafe-creme");
    expect(slugOf("Клиенты 2024")).toBe("клиенты-2024");
  });

  it("falls back when nothing is left", () => {
    expect(slugOf("!!!")).toBe("segment");
  });
});
