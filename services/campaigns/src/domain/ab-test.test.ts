import { describe, expect, it } from "vitest";
import { AppError } from "@mailroom/contracts";
import { mergeAbTest, pickWinner, sampleSize, variantContent } from "./ab-test.js";

const abTest = { samplePercent: 20, metric: "opened" as const, waitMinutes: 60 };
const variants = [{ subject: "A" }, { subject: "B", body: "<p>B</p>" }];
const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.details?.[0]?.path : "not an AppError";
  }
  return null;
};

describe("mergeAbTest", () => {
  it("keeps what the edit does not name, and null clears", () => {
    const stored = { variants, abTest };
    expect(mergeAbTest(stored, {})).toEqual(stored);
    expect(mergeAbTest(stored, { variants: null, abTest: null })).toEqual({ variants: null, abTest: null });
    expect(mergeAbTest(null, {})).toEqual({ variants: null, abTest: null });
  });

  it("requires both or neither, at the missing field", () => {
    expect(fieldOf(() => mergeAbTest({ variants, abTest }, { abTest: null }))).toBe("abTest");
    expect(fieldOf(() => mergeAbTest(null, { abTest }))).toBe("variants");
  });

  it("drops an empty body, so the campaign's applies", () => {
    expect(mergeAbTest(null, { variants: [{ subject: "A", body: null }, { subject: "B" }], abTest }).variants).toEqual([{ subject: "A" }, { subject: "B" }]);
  });
});

describe("sampleSize", () => {
  it("rounds the share up, gives each variant one at least, never exceeds the audience", () => {
    expect(sampleSize(40, 50, 2)).toBe(20);
    expect(sampleSize(1001, 10, 2)).toBe(101);
    expect(sampleSize(10, 1, 3)).toBe(3);
    expect(sampleSize(2, 1, 3)).toBe(2);
    expect(sampleSize(0, 50, 2)).toBe(0);
  });
});

describe("pickWinner", () => {
  const counts = [
    { variant: 0, sent: 10, opened: 2, clicked: 3 },
    { variant: 1, sent: 5, opened: 2, clicked: 1 },
  ];
  it("takes the higher rate over sent, not the higher count", () => {
    expect(pickWinner(counts, "opened", 2)).toBe(1);
    expect(pickWinner(counts, "clicked", 2)).toBe(0);
  });
  it("gives a tie to the lower index, and rates a variant with nothing sent 0", () => {
    expect(pickWinner([{ variant: 0, sent: 4, opened: 1, clicked: 0 }, { variant: 1, sent: 8, opened: 2, clicked: 0 }], "opened", 2)).toBe(0);
    expect(pickWinner([], "opened", 3)).toBe(0);
    expect(pickWinner([{ variant: 2, sent: 1, opened: 1, clicked: 0 }], "opened", 3)).toBe(2);
  });
});

describe("variantContent", () => {
  const c = { subject: "S", body: "<p>main</p>", variants };
  it("uses the variant's body, else the campaign's", () => {
    expect(variantContent(c, 0)).toEqual({ subject: "A", body: "<p>main</p>" });
    expect(variantContent(c, 1)).toEqual({ subject: "B", body: "<p>B</p>" });
    expect(variantContent(c, null)).toEqual({ subject: "S", body: "<p>main</p>" });
    expect(variantContent({ ...c, variants: null }, 1)).toEqual({ subject: "S", body: "<p>main</p>" });
  });
});
