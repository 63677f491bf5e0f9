import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { type Filter, FilterExpression } from "@mailroom/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEGMENT_IDS, contacts, expression, segments } from "./arbitraries.js";
import { expectAgreement } from "./agree.js";
import { type ScratchDb, scratchDatabase } from "./scratch-db.js";

const leaves = (e: FilterExpression): Filter[] =>
  e.groups.flatMap((g) => [...g.filters, ...(g.conditions ? leaves(g.conditions) : [])]);
const single = (filter: Filter): FilterExpression => ({ logic: "AND", groups: [{ filters: [filter] }] });

/**
 * decisions.md §8: the same expression gives the same answer in SQL and in memory. Random filters
 * (every field family and operator, nested groups, both logics, segments tracked and inlined), and
 * each of their filters alone, run against random contacts stored in real tables.
 */
describe("compileFilter and evaluateFilter agree", () => {
  let db: ScratchDb;
  beforeAll(async () => {
    db = await scratchDatabase();
    await db.addSegments(randomUUID(), Object.values(SEGMENT_IDS));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("on random filters over random contacts", async () => {
    await fc.assert(
      fc.asyncProperty(contacts, fc.array(expression(3), { minLength: 3, maxLength: 3 }), segments, async (people, random, segs) => {
        const whole = [...random, ...[...segs.values()].map((s) => s.filters)];
        for (const expr of whole) expect(FilterExpression.safeParse(expr).error?.issues ?? []).toEqual([]);
        await expectAgreement(db, people, [...whole, ...whole.flatMap(leaves).map(single)], segs, { allStored: false });
      }),
      // endOnFailure: shrinking through the database takes minutes; the failure names the filter
      { numRuns: 200, seed: 20250615, endOnFailure: true },
    );
  }, 120_000);
});
