import { describe, expect, it } from "vitest";
import { dayOf, dayStart, msUntilNextDay, nextCap, WARMUP_MAX, WARMUP_START } from "./warmup.js";

describe("warm-up caps", () => {
  it("start at 50 and double after a day with few bounces and complaints", () => {
    expect(WARMUP_START).toBe(50);
    expect(nextCap(50, { sent: 50, bounced: 0, complained: 0 })).toBe(100);
    expect(nextCap(100, { sent: 100, bounced: 1, complained: 0 })).toBe(200);
    expect(nextCap(WARMUP_MAX, { sent: 10, bounced: 0, complained: 0 })).toBe(WARMUP_MAX);
  });

  it("stay after a day with 2% bounces or 0.1% complaints, or with no mail", () => {
    expect(nextCap(100, { sent: 100, bounced: 2, complained: 0 })).toBe(100);
    expect(nextCap(1000, { sent: 1000, bounced: 0, complained: 1 })).toBe(1000);
    expect(nextCap(100, { sent: 0, bounced: 0, complained: 0 })).toBe(100);
  });

  it("count days in UTC", () => {
    const at = new Date("2026-03-09T23:59:50.000Z");
    expect(dayOf(at)).toBe("2026-03-09");
    expect(msUntilNextDay(at)).toBe(10_000);
    expect(dayStart("2026-03-09", -1).toISOString()).toBe("2026-03-08T00:00:00.000Z");
    expect(dayStart("2026-12-31", 1).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
