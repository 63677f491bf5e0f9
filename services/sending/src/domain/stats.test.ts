import { describe, expect, it } from "vitest";
import { AppError, MAX_STATS_POINTS } from "@mailroom/contracts";
import { bucketStart, fillSeries, statsRange, zeroCounts } from "./stats.js";

const d = (s: string) => new Date(s);

describe("stats buckets and series", () => {
  it("puts a time in the UTC hour or day that holds it, whatever offset it was written with", () => {
    expect(bucketStart(d("2024-03-10T13:59:59.999Z"), "hour").toISOString()).toBe("2024-03-10T13:00:00.000Z");
    expect(bucketStart(d("2024-03-10T13:00:00.000Z"), "hour").toISOString()).toBe("2024-03-10T13:00:00.000Z");
    // 01:30 at +02:00 is 23:30 UTC of the day before
    expect(bucketStart(d("2024-03-11T01:30:00+02:00"), "day").toISOString()).toBe("2024-03-10T00:00:00.000Z");
    expect(bucketStart(d("1969-12-31T23:30:00Z"), "hour").toISOString()).toBe("1969-12-31T23:00:00.000Z");
  });

  it("spans from the bucket of `from` through the bucket of `to`, both included", () => {
    expect(statsRange(d("2024-01-01T10:20:00Z"), d("2024-01-03T00:00:00Z"), "day")).toMatchObject({ points: 3 });
    expect(statsRange(d("2024-01-01T10:20:00Z"), d("2024-01-01T10:20:00Z"), "hour")).toMatchObject({ points: 1 });
    expect(statsRange(d("2024-01-01T10:59:00Z"), d("2024-01-01T11:00:00Z"), "hour")).toMatchObject({ points: 2 });
    // a leap year of days fits
    expect(statsRange(d("2024-01-01T00:00:00Z"), d("2024-12-31T23:59:59Z"), "day").points).toBe(366);
  });

  it("refuses `from` after `to` and ranges of more than MAX_STATS_POINTS points, naming the field", () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err as AppError;
      }
      throw new Error("no error");
    };
    const backwards = refusal(() => statsRange(d("2024-01-02T00:00:00Z"), d("2024-01-01T23:59:59Z"), "day"));
    expect(backwards).toBeInstanceOf(AppError);
    expect(backwards.code).toBe("VALIDATION_ERROR");
    expect(backwards.details).toEqual([{ path: "query.from", message: "must not be after `to`" }]);

    const start = d("2024-01-01T00:00:00Z");
    const lastAllowed = new Date(start.getTime() + (MAX_STATS_POINTS - 1) * 3_600_000);
    expect(statsRange(start, lastAllowed, "hour").points).toBe(MAX_STATS_POINTS);
    const tooMany = refusal(() => statsRange(start, new Date(lastAllowed.getTime() + 3_600_000), "hour"));
    expect(tooMany.code).toBe("VALIDATION_ERROR");
    expect(tooMany.message).toContain(`more than ${MAX_STATS_POINTS}`);
    expect(tooMany.message).toContain("interval=day");
    expect(tooMany.details?.[0]?.path).toBe("query.to");
    expect(refusal(() => statsRange(d("2000-01-01T00:00:00Z"), d("2024-01-01T00:00:00Z"), "day")).code).toBe("VALIDATION_ERROR");
  });

  it("fills every point in order, zeros where no bucket had counts", () => {
    const range = statsRange(d("2024-01-01T00:00:00Z"), d("2024-01-04T12:00:00Z"), "day");
    const series = fillSeries(range, [
      { at: d("2024-01-03T00:00:00Z"), ...zeroCounts(), sent: 4, opened: 1 },
      { at: d("2024-01-01T00:00:00Z"), ...zeroCounts(), failed: 2 },
    ]);
    expect(series.map((p) => p.at)).toEqual([
      "2024-01-01T00:00:00.000Z",
      "2024-01-02T00:00:00.000Z",
      "2024-01-03T00:00:00.000Z",
      "2024-01-04T00:00:00.000Z",
    ]);
    expect(series[0]).toEqual({ at: "2024-01-01T00:00:00.000Z", ...zeroCounts(), failed: 2 });
    expect(series[1]).toEqual({ at: "2024-01-02T00:00:00.000Z", ...zeroCounts() });
    expect(series[2]).toMatchObject({ sent: 4, opened: 1, delivered: 0 });
    expect(series[3]).toEqual({ at: "2024-01-04T00:00:00.000Z", ...zeroCounts() });
  });
});
