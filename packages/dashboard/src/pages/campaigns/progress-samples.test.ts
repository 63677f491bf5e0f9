import { describe, expect, it } from "vitest";
import { addSample, MAX_SAMPLES, processedPercent } from "./progress-samples";

const stats = (sent: number, delivered = 0, failed = 0, skipped = 0) => ({ recipients: 10, sent, delivered, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed, skipped, waiting: 0, variants: [] });

describe("progress samples", () => {
  it("adds a reading only when a count moved", () => {
    let s = addSample([], 1, stats(0));
    s = addSample(s, 2, stats(0));
    s = addSample(s, 3, stats(4, 1));
    expect(s.map((x) => x.at)).toEqual([1, 3]);
  });

  it("keeps the newest readings only", () => {
    let s = addSample([], 0, stats(0));
    for (let i = 1; i <= MAX_SAMPLES + 5; i++) s = addSample(s, i, stats(i));
    expect(s).toHaveLength(MAX_SAMPLES);
    expect(s[s.length - 1]!.sent).toBe(MAX_SAMPLES + 5);
  });

  it("counts failed emails and the frequency cap's skips as processed", () => {
    expect(processedPercent(stats(4, 0, 1))).toBe(50);
    expect(processedPercent(stats(4, 0, 1, 5))).toBe(100);
    expect(processedPercent({ ...stats(0), recipients: 0 })).toBe(0);
  });
});
