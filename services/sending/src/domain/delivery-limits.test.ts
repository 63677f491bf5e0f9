import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, DeliveryLimitsText } from "./delivery-limits.js";

describe("DELIVERY_LIMITS", () => {
  it("is the defaults when unset or empty", () => {
    for (const raw of [undefined, "", "  "]) {
      const limits = DeliveryLimitsText.parse(raw);
      expect(limits.of("google")).toEqual(DEFAULT_LIMITS.google);
      expect(limits.of("mimecast.com")).toEqual(DEFAULT_LIMITS.default);
    }
  });

  it("merges what is given over the defaults, field by field; default applies to providers without an entry", () => {
    const limits = DeliveryLimitsText.parse('{"google":{"perMinute":3000},"default":{"connections":4,"perMinute":600},"mimecast.com":{"perMinute":100}}');
    expect(limits.of("google")).toEqual({ connections: DEFAULT_LIMITS.google!.connections, perMinute: 3000 });
    expect(limits.of("example.com")).toEqual({ connections: 4, perMinute: 600 });
    expect(limits.of("mimecast.com")).toEqual({ connections: 4, perMinute: 100 });
    expect(limits.has("mimecast.com")).toBe(true);
    expect(limits.has("example.com")).toBe(false);
  });

  it("refuses bad values with a message that says what is wrong", () => {
    const error = (raw: string) => {
      const r = DeliveryLimitsText.safeParse(raw);
      expect(r.success, raw).toBe(false);
      return JSON.stringify(r.error?.issues);
    };
    expect(error("{google: 1}")).toMatch(/must be JSON/);
    expect(error('{"google":{"perMinute":-1}}')).toMatch(/perMinute/);
    expect(error('{"google":{"connections":0}}')).toMatch(/connections/);
    expect(error('{"google":{"conections":5}}')).toMatch(/conections/);
    expect(error('{"Not A Provider!":{"perMinute":5}}')).toMatch(/must be default/);
    expect(error('{"google":{"perMinute":1.5}}')).toMatch(/perMinute/);
    expect(error("[]")).toBeTruthy();
  });
});
