import { describe, expect, it } from "vitest";
import { afterRun, CUT_COOLDOWN_MS, DeferralRun, effectiveFactor, MIN_FACTOR, RUN_LENGTH, slowedPerMinute } from "./aimd.js";

describe("slowing a provider that defers (AIMD)", () => {
  it("halves on a run, down to a floor, once per cool-down", () => {
    expect(afterRun(1, Infinity)).toBe(0.5);
    expect(afterRun(0.5, CUT_COOLDOWN_MS)).toBeCloseTo(0.5 / 2 + (0.1 * CUT_COOLDOWN_MS) / 60_000 / 2);
    expect(afterRun(0.5, CUT_COOLDOWN_MS - 1)).toBeNull();
    expect(afterRun(MIN_FACTOR, CUT_COOLDOWN_MS)).toBe(MIN_FACTOR);
  });

  it("grows back a tenth of the limit a minute, never past it", () => {
    expect(effectiveFactor(0.5, 0)).toBe(0.5);
    expect(effectiveFactor(0.5, 60_000)).toBeCloseTo(0.6);
    expect(effectiveFactor(0.5, 10 * 60_000)).toBe(1);
    expect(effectiveFactor(0.5, -5)).toBe(0.5);
    expect(slowedPerMinute(600, 0.5)).toBe(300);
    expect(slowedPerMinute(10, MIN_FACTOR)).toBe(1);
  });

  it("counts a run as deferrals in a row, a message taken in between starting it again", () => {
    const run = new DeferralRun();
    for (let i = 1; i < RUN_LENGTH; i++) expect(run.deferred()).toBe(false);
    run.taken();
    for (let i = 1; i < RUN_LENGTH; i++) expect(run.deferred()).toBe(false);
    expect(run.deferred()).toBe(true);
    expect(run.deferred()).toBe(false);
  });
});
