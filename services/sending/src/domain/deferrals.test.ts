import { describe, expect, it } from "vitest";
import { afterDeferral, deferralDelayMs, deferralsWithin, isDeferral, parseDuration } from "./deferrals.js";

const MIN = 60_000;

describe("the 4xx retry schedule (decisions.md §18)", () => {
  it("waits 1, 5, 15 and 60 minutes, then every 2 hours", () => {
    expect([1, 2, 3, 4, 5, 6, 30].map((n) => deferralDelayMs(n) / MIN)).toEqual([1, 5, 15, 60, 120, 120, 120]);
  });

  it("is divided by the time scale", () => {
    expect(deferralDelayMs(1, 60)).toBe(1000);
    expect(deferralDelayMs(4, 60)).toBe(60_000);
  });

  it("fits 40 deferrals in 72 hours (81 minutes, then 36 two-hour waits, the last one crossing it)", () => {
    expect(deferralsWithin(72 * 60 * MIN)).toBe(4 + 36);
    expect(deferralsWithin(0)).toBe(0);
    expect(deferralsWithin(MIN)).toBe(1);
  });

  it("expires an email whose next retry would come after its maximum age", () => {
    const queued = new Date("2026-01-01T00:00:00Z");
    const maxAge = 72 * 60 * MIN;
    expect(afterDeferral(1, queued, new Date(queued.getTime() + 10_000), maxAge)).toEqual({ retryInMs: MIN });
    expect(afterDeferral(30, queued, new Date(queued.getTime() + maxAge - 119 * MIN), maxAge)).toEqual({ expired: true });
    expect(afterDeferral(30, queued, new Date(queued.getTime() + maxAge - 120 * MIN), maxAge)).toEqual({ retryInMs: 120 * MIN });
  });

  it("counts 4xx replies as deferrals, not 5xx or errors without a reply", () => {
    expect([421, 450, 451, 452, 454].every((responseCode) => isDeferral({ responseCode }))).toBe(true);
    expect(isDeferral({ responseCode: 550 })).toBe(false);
    expect(isDeferral(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNECTION" }))).toBe(false);
  });
});

describe("DELIVERY_MAX_AGE", () => {
  it("reads durations and milliseconds", () => {
    expect(parseDuration("72h")).toBe(72 * 60 * MIN);
    expect(parseDuration("30m")).toBe(30 * MIN);
    expect(parseDuration("45s")).toBe(45_000);
    expect(parseDuration("1500")).toBe(1500);
    expect(parseDuration("1.5h")).toBe(90 * MIN);
  });

  it("refuses what is not a duration", () => {
    for (const bad of ["", "h", "72 hours", "-1h", "3w"]) expect(parseDuration(bad), bad).toBeNull();
  });
});
