import { describe, expect, it } from "vitest";
import { rate } from "../../lib/format";
import { bounds, intervalFor, intervalsOf, rangeByKey, ratesOf, totals } from "./range";

const point = (at: string, sent: number, opened: number) => ({ at, sent, delivered: sent, opened, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 1 });

describe("the Overview's ranges", () => {
  const now = new Date("2026-03-10T15:30:00.000Z");

  it("by day: starts at the UTC day `days - 1` days before today and ends now", () => {
    expect(bounds(rangeByKey("7d"), "day", now)).toEqual({ from: "2026-03-04T00:00:00.000Z", to: "2026-03-10T15:30:00.000Z" });
    expect(bounds(rangeByKey("365d"), "day", now).from).toBe("2025-03-11T00:00:00.000Z");
  });

  it("by hour: starts at the hour `days × 24 - 1` hours before this one", () => {
    expect(bounds(rangeByKey("24h"), "hour", now)).toEqual({ from: "2026-03-09T16:00:00.000Z", to: "2026-03-10T15:30:00.000Z" });
  });

  it("offers hours only where they fit the API's 1,000 points, days only past a day", () => {
    expect(intervalsOf(rangeByKey("24h"))).toEqual(["hour"]);
    expect(intervalsOf(rangeByKey("30d"))).toEqual(["hour", "day"]);
    expect(intervalsOf(rangeByKey("90d"))).toEqual(["day"]);
    expect(intervalFor(rangeByKey("90d"), "hour")).toBe("day");
    expect(intervalFor(rangeByKey("24h"), "day")).toBe("hour");
    expect(intervalFor(rangeByKey("30d"), "hour")).toBe("hour");
    expect(intervalFor(rangeByKey("30d"), null)).toBe("day");
  });

  it("falls back to the last 7 days for an unknown key", () => {
    expect(rangeByKey("forever").key).toBe("7d");
    expect(rangeByKey(null).key).toBe("7d");
  });
});

describe("the Overview's figures", () => {
  it("sums every counter and gives rates over sent, with nothing sent shown as a dash", () => {
    const sum = totals([point("2026-03-09T00:00:00Z", 3, 1), point("2026-03-10T00:00:00Z", 1, 1)]);
    expect(sum).toMatchObject({ sent: 4, opened: 2, failed: 2 });
    expect(rate(sum.opened, sum.sent)).toBe("50.0%");
    expect(rate(0, 0)).toBe("—");
  });

  it("gives each point's rates in percent, none where nothing was sent", () => {
    expect(ratesOf([point("a", 4, 1), point("b", 0, 0)])).toEqual([
      { at: "a", delivered: 100, opened: 25, clicked: 0, bounced: 0 },
      { at: "b", delivered: null, opened: null, clicked: null, bounced: null },
    ]);
  });
});
