import { describe, expect, it } from "vitest";
import { rate } from "../../lib/format";
import { lastDays, totals } from "./week";

describe("the Overview's week", () => {
  it("starts six UTC days before today's start and ends now", () => {
    const now = new Date("2026-03-10T15:30:00.000Z");
    expect(lastDays(7, now)).toEqual({ from: "2026-03-04T00:00:00.000Z", to: "2026-03-10T15:30:00.000Z" });
  });

  it("sums every counter and gives rates over sent, with nothing sent shown as a dash", () => {
    const point = (at: string, sent: number, opened: number) => ({ at, sent, delivered: sent, opened, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 1 });
    const sum = totals([point("2026-03-09T00:00:00Z", 3, 1), point("2026-03-10T00:00:00Z", 1, 1)]);
    expect(sum).toMatchObject({ sent: 4, opened: 2, failed: 2 });
    expect(rate(sum.opened, sum.sent)).toBe("50.0%");
    expect(rate(0, 0)).toBe("—");
  });
});
