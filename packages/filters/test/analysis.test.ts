import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ContactFacts, type SegmentMap, affectedBy, evaluateFilter, nextBoundary } from "../src/index.js";
import { SEGMENT_IDS, TOPICS, contacts, expression, segments } from "./arbitraries.js";
import { DAY, NOW, ago, contact, only } from "./helpers.js";

describe("affectedBy", () => {
  it("lists what a change must touch, through untracked segments", () => {
    const tracked = "018f0000-0000-7000-8000-000000000001";
    const untracked = "018f0000-0000-7000-8000-000000000002";
    const segs: SegmentMap = new Map([
      [tracked, { trackMembership: true, filters: only("data.hidden", "exists") }],
      [untracked, { trackMembership: false, filters: only("email.clicked", "triggeredWithin", 3, "days") }],
    ]);
    const affected = affectedBy(
      {
        logic: "OR",
        groups: [
          { filters: [{ field: "contact.email", operator: "endsWith", value: "@x.io" }, { field: "data.profile.tier", operator: "equals", value: "gold" }] },
          { filters: [{ field: "event.signup", operator: "triggered" }, { field: `segment.${tracked}`, operator: "memberOfSegment" }] },
          { filters: [], conditions: only(`segment.${untracked}`, "notMemberOfSegment") },
        ],
      },
      { segments: segs },
    );
    expect(affected).toEqual({
      fields: new Set(["email", "data.profile.tier"]),
      events: new Set(["signup"]),
      emailKinds: new Set(["clicked"]),
      segments: new Set([tracked, untracked]),
      timeRelative: true,
    });
    expect(affectedBy(only("createdAt", "greaterThan", "2025-01-01T00:00:00Z")).timeRelative).toBe(false);
    expect(affectedBy(only("createdAt", "olderThan", 1, "days")).fields).toEqual(new Set(["createdAt"]));
  });
});

describe("nextBoundary", () => {
  it("is the first instant a window lets go of or takes in the contact", () => {
    const facts = contact({
      createdAt: ago(6 * DAY),
      events: [{ name: "purchase", createdAt: ago(2 * DAY) }, { name: "purchase", createdAt: ago(DAY) }],
    });
    const at = (ms: number) => new Date(NOW.getTime() + ms);
    expect(nextBoundary(only("createdAt", "within", 7, "days"), facts, NOW)).toEqual(at(DAY + 1));
    expect(nextBoundary(only("createdAt", "olderThan", 7, "days"), facts, NOW)).toEqual(at(DAY + 1));
    // the newest purchase keeps triggeredWithin true, the oldest makes triggeredOlderThan true
    expect(nextBoundary(only("event.purchase", "triggeredWithin", 3, "days"), facts, NOW)).toEqual(at(2 * DAY + 1));
    expect(nextBoundary(only("event.purchase", "triggeredOlderThan", 3, "days"), facts, NOW)).toEqual(at(DAY + 1));
    expect(nextBoundary(only("event.purchase", "triggered"), facts, NOW)).toBeNull();
    expect(nextBoundary(only("createdAt", "within", 1, "days"), facts, NOW)).toBeNull(); // already out, stays out
    const either = { logic: "OR" as const, groups: [
      { filters: [{ field: "createdAt", operator: "within" as const, value: 7, unit: "days" as const }] },
      { filters: [{ field: "event.purchase", operator: "triggeredWithin" as const, value: 3, unit: "days" as const }] },
    ] };
    expect(nextBoundary(either, facts, NOW)).toEqual(at(2 * DAY + 1)); // the first flip changes nothing
  });

  const factsOf = (people: Awaited<ReturnType<typeof contacts.generate>>["value"]): ContactFacts[] =>
    people.map((p) => ({ ...p, segments: new Set(p.segments) }));

  it("is exactly where the answer first changes (property)", () => {
    fc.assert(
      fc.property(contacts, expression(3), segments, fc.integer({ min: 1, max: 40 * DAY }), (people, expr, segs, probe) => {
        for (const facts of factsOf(people)) {
          const answer = (ms: number) => evaluateFilter(expr, facts, { now: new Date(ms), segments: segs, topics: TOPICS });
          const now = NOW.getTime();
          const b = nextBoundary(expr, facts, NOW, { segments: segs, topics: TOPICS });
          if (b === null) {
            expect(answer(now + probe)).toBe(answer(now));
            expect(answer(now + 3650 * DAY)).toBe(answer(now));
          } else {
            expect(b.getTime()).toBeGreaterThan(now);
            expect(answer(b.getTime())).not.toBe(answer(now));
            expect(answer(b.getTime() - 1)).toBe(answer(now));
            if (now + probe < b.getTime()) expect(answer(now + probe)).toBe(answer(now));
          }
        }
      }),
      { numRuns: 300, seed: 20250615 },
    );
  });

  it("walks into untracked segments", () => {
    const segs: SegmentMap = new Map([[SEGMENT_IDS.untracked, { trackMembership: false, filters: only("updatedAt", "within", 2, "days") }]]);
    const b = nextBoundary(only(`segment.${SEGMENT_IDS.untracked}`, "memberOfSegment"), contact({ updatedAt: ago(DAY) }), NOW, { segments: segs });
    expect(b).toEqual(new Date(NOW.getTime() + DAY + 1));
  });
});
