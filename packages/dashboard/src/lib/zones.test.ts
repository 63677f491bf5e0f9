import { describe, expect, it } from "vitest";
import { timeZones, utcToZoned, zonedToUtc } from "./zones";

describe("zoned times", () => {
  it("reads a wall-clock time in its zone as a UTC instant", () => {
    expect(zonedToUtc("2026-07-01T10:30", "Europe/Paris")).toBe("2026-07-01T08:30:00.000Z");
    expect(zonedToUtc("2026-12-01T10:30", "Europe/Paris")).toBe("2026-12-01T09:30:00.000Z");
    expect(zonedToUtc("2026-12-01T10:30", "America/New_York")).toBe("2026-12-01T15:30:00.000Z");
    expect(zonedToUtc("2026-12-01T10:30", "UTC")).toBe("2026-12-01T10:30:00.000Z");
    expect(zonedToUtc("2026-12-01T10:30", "Asia/Kolkata")).toBe("2026-12-01T05:00:00.000Z");
    expect(zonedToUtc("2026-12-01T10:30:15", "Europe/Paris")).toBe("2026-12-01T09:30:15.000Z");
  });

  it("moves a time skipped by DST forward, keeps an ambiguous one valid, refuses junk", () => {
    // 02:30 does not exist in Paris on 2026-03-29 (02:00 → 03:00)
    expect(zonedToUtc("2026-03-29T02:30", "Europe/Paris")).toBe("2026-03-29T01:30:00.000Z");
    expect(zonedToUtc("2026-10-25T02:30", "Europe/Paris")).toMatch(/^2026-10-25T0[01]:30:00.000Z$/);
    expect(zonedToUtc("tomorrow", "UTC")).toBeNull();
  });

  it("shows a UTC instant in a zone, and round-trips", () => {
    expect(utcToZoned("2026-07-01T08:30:00.000Z", "Europe/Paris")).toBe("2026-07-01T10:30");
    for (const zone of ["Europe/Paris", "America/Los_Angeles", "Australia/Sydney", "UTC"]) {
      expect(zonedToUtc(utcToZoned("2026-11-26T17:45:00.000Z", zone), zone)).toBe("2026-11-26T17:45:00.000Z");
    }
  });
});

describe("the zones a picker offers", () => {
  it("list the zone already chosen even when the browser knows it only by another name", () => {
    const zones = timeZones("America/Argentina/ComodRivadavia");
    expect(zones[0]).toBe("America/Argentina/ComodRivadavia");
    expect(zones).toContain("UTC");
    expect(new Set(zones).size).toBe(zones.length);
  });
});
