import { describe, expect, it } from "vitest";
import { FilterError, evaluateFilter, type ContactFacts, type SegmentMap } from "../src/index.js";
import { DAY, NOW, ago, contact, only } from "./helpers.js";

const at = (expr: Parameters<typeof evaluateFilter>[0], facts: ContactFacts = contact(), extra = {}) =>
  evaluateFilter(expr, facts, { now: NOW, ...extra });

describe("email", () => {
  it.each([
    ["equals", "ada.lovelace@example.COM", true],
    ["equals", "ada@example.com", false],
    ["notEquals", "ADA.LOVELACE@EXAMPLE.COM", false],
    ["contains", "LOVELACE@", true],
    ["startsWith", "ada.", true],
    ["endsWith", "EXAMPLE.COM", true],
    ["notContains", "grace", true],
    ["in", ["x@y.z", "ADA.lovelace@example.com"], true],
    ["notIn", ["x@y.z"], true],
  ] as const)("%s %j is %s, ignoring ASCII case", (op, value, expected) => {
    expect(at(only("email", op, value as never))).toBe(expected);
    expect(at(only("contact.email", op, value as never))).toBe(expected);
  });

  it("folds ASCII letters only, so every database agrees", () => {
    const facts = contact({ email: "ÉLODIE@example.com" });
    expect(at(only("email", "equals", "Élodie@EXAMPLE.com"), facts)).toBe(true);
    expect(at(only("email", "equals", "élodie@example.com"), facts)).toBe(false);
  });

  it("always exists", () => {
    expect(at(only("email", "exists"))).toBe(true);
    expect(at(only("email", "notExists"))).toBe(false);
  });

  it("treats LIKE wildcards literally", () => {
    expect(at(only("email", "contains", "%"))).toBe(false);
    expect(at(only("email", "contains", "_"), contact({ email: "a_b@x.io" }))).toBe(true);
  });
});

describe("subscribed", () => {
  it("compares booleans", () => {
    expect(at(only("subscribed", "equals", true))).toBe(true);
    expect(at(only("contact.subscribed", "notEquals", true))).toBe(false);
    expect(at(only("subscribed", "equals", false), contact({ subscribed: false }))).toBe(true);
  });
});

describe("createdAt and updatedAt", () => {
  const created = contact({ createdAt: new Date("2025-06-01T00:00:00.000Z") });
  it.each([
    ["greaterThan", "2025-05-31T23:59:59.999Z", true],
    ["greaterThan", "2025-06-01T00:00:00.000Z", false],
    ["greaterThanOrEqual", "2025-06-01T02:00:00+02:00", true],
    ["lessThan", "2025-06-01T00:00:00.000Z", false],
    ["lessThanOrEqual", "2025-06-01T00:00:00Z", true],
  ] as const)("%s %s is %s", (op, value, expected) => {
    expect(at(only("createdAt", op, value), created)).toBe(expected);
  });

  it("within includes the boundary instant, olderThan starts one millisecond before it", () => {
    const edge = contact({ updatedAt: ago(7 * DAY) });
    expect(at(only("updatedAt", "within", 7, "days"), edge)).toBe(true);
    expect(at(only("updatedAt", "olderThan", 7, "days"), edge)).toBe(false);
    const older = contact({ updatedAt: ago(7 * DAY + 1) });
    expect(at(only("updatedAt", "within", 7, "days"), older)).toBe(false);
    expect(at(only("updatedAt", "olderThan", 168, "hours"), older)).toBe(true);
    expect(at(only("updatedAt", "within", 10_080, "minutes"), contact({ updatedAt: "2025-06-08T12:00:00.000Z" }))).toBe(true);
  });

  it("counts a future instant as within", () => {
    expect(at(only("createdAt", "within", 1, "minutes"), contact({ createdAt: new Date(NOW.getTime() + DAY) }))).toBe(true);
  });
});

describe("data", () => {
  it("compares strings case-sensitively and never across types", () => {
    expect(at(only("data.plan", "equals", "pro"))).toBe(true);
    expect(at(only("data.plan", "equals", "PRO"))).toBe(false);
    expect(at(only("data.age", "equals", 36))).toBe(true);
    expect(at(only("data.age", "equals", "36"))).toBe(false);
    expect(at(only("data.vip", "equals", true))).toBe(true);
    expect(at(only("data.vip", "equals", "true"))).toBe(false);
    expect(at(only("data.profile", "equals", "gold"))).toBe(false);
    expect(at(only("data.age", "notEquals", "36"))).toBe(true);
  });

  it.each([
    ["equals", "x", false],
    ["notEquals", "x", true],
    ["contains", "x", false],
    ["notContains", "x", true],
    ["greaterThan", 1, false],
    ["lessThan", 1, false],
    ["exists", undefined, false],
    ["notExists", undefined, true],
    ["in", ["x", 1], false],
    ["notIn", ["x", 1], true],
  ] as const)("a missing field: %s is %s", (op, value, expected) => {
    expect(at(only("data.missing", op, value as never))).toBe(expected);
    expect(at(only("data.nothing", op, value as never))).toBe(expected); // JSON null is missing
    expect(at(only("data.plan.deeper", op, value as never))).toBe(expected); // a string is not walked
  });

  it("walks objects, not arrays, and only own keys", () => {
    expect(at(only("data.profile.tier", "equals", "gold"))).toBe(true);
    expect(at(only("data.tags.0", "exists"))).toBe(false);
    expect(at(only("data.constructor", "exists"))).toBe(false);
    expect(at(only("data.__proto__", "exists"), contact({ data: JSON.parse('{"__proto__": 1}') }))).toBe(true);
  });

  it("contains works on strings and on the elements of arrays", () => {
    expect(at(only("data.plan", "contains", "r"))).toBe(true);
    expect(at(only("data.tags", "contains", "beta"))).toBe(true);
    expect(at(only("data.tags", "contains", "bet"))).toBe(false);
    expect(at(only("data.tags", "startsWith", "early"))).toBe(false);
    expect(at(only("data.plan", "startsWith", "p"))).toBe(true);
    expect(at(only("data.plan", "endsWith", "ro"))).toBe(true);
    expect(at(only("data.plan", "contains", ""))).toBe(true);
    expect(at(only("data.age", "contains", "3"))).toBe(false);
  });

  it("orders numbers numerically and strings by code point", () => {
    expect(at(only("data.age", "greaterThan", 9))).toBe(true);
    expect(at(only("data.age", "greaterThan", "9"))).toBe(false);
    expect(at(only("data.age", "lessThanOrEqual", 36))).toBe(true);
    expect(at(only("data.plan", "greaterThan", "Z"))).toBe(true); // "p" > "Z" in code points
    const astral = contact({ data: { s: "😀" } });
    expect(at(only("data.s", "greaterThan", "\uFFFD"), astral)).toBe(true); // UTF-16 would say less
  });

  it("compares ISO date-times chronologically, and only with ISO date-time values", () => {
    const facts = contact({ data: { d: "2024-01-01T01:00:00+01:00", bad: "2024-02-30T00:00:00Z", n: 5 } });
    expect(at(only("data.d", "greaterThanOrEqual", "2024-01-01T00:00:00Z"), facts)).toBe(true);
    expect(at(only("data.d", "greaterThan", "2024-01-01T00:00:00Z"), facts)).toBe(false);
    expect(at(only("data.d", "lessThan", "2024-01-01T00:00:00.001Z"), facts)).toBe(true);
    expect(at(only("data.bad", "lessThan", "2030-01-01T00:00:00Z"), facts)).toBe(false);
    expect(at(only("data.n", "lessThan", "2030-01-01T00:00:00Z"), facts)).toBe(false);
    expect(at(only("data.d", "equals", "2024-01-01T00:00:00Z"), facts)).toBe(false); // equality is textual
  });

  it("within and olderThan read ISO date-time strings", () => {
    const facts = contact({ data: { seen: ago(DAY).toISOString(), n: NOW.getTime(), text: "yesterday" } });
    expect(at(only("data.seen", "within", 1, "days"), facts)).toBe(true);
    expect(at(only("data.seen", "within", 23, "hours"), facts)).toBe(false);
    expect(at(only("data.seen", "olderThan", 23, "hours"), facts)).toBe(true);
    expect(at(only("data.n", "within", 1, "days"), facts)).toBe(false);
    expect(at(only("data.text", "olderThan", 1, "days"), facts)).toBe(false);
    expect(at(only("data.missing", "olderThan", 1, "days"), facts)).toBe(false);
  });

  it("in and notIn use the same typed equality", () => {
    expect(at(only("data.age", "in", ["36", 36]))).toBe(true);
    expect(at(only("data.age", "in", ["36", true]))).toBe(false);
    expect(at(only("data.tags", "in", ["early"]))).toBe(false);
    expect(at(only("data.vip", "notIn", [false]))).toBe(true);
  });
});

describe("events and email activity", () => {
  const facts = contact({
    events: [
      { name: "signup", createdAt: ago(30 * DAY) },
      { name: "purchase", createdAt: ago(2 * DAY) },
      { name: "purchase", createdAt: ago(9 * DAY) },
    ],
    emailActivity: [{ kind: "opened", occurredAt: ago(14 * DAY).toISOString() }],
  });

  it.each([
    ["event.signup", "triggered", undefined, true],
    ["event.Signup", "triggered", undefined, false],
    ["event.refund", "notTriggered", undefined, true],
    ["event.purchase", "triggeredWithin", 2, true],
    ["event.purchase", "triggeredWithin", 1, false],
    ["event.purchase", "notTriggeredWithin", 1, true],
    ["event.purchase", "triggeredOlderThan", 8, true],
    ["event.purchase", "triggeredOlderThan", 9, false],
    ["event.refund", "triggeredOlderThan", 1, false],
    ["email.opened", "triggeredWithin", 14, true],
    ["email.opened", "notTriggeredWithin", 13, true],
    ["email.clicked", "triggered", undefined, false],
    ["email.clicked", "notTriggeredWithin", 1, true],
  ] as const)("%s %s %s days is %s", (field, op, days, expected) => {
    expect(at(only(field, op, days, days === undefined ? undefined : "days"), facts)).toBe(expected);
  });
});

describe("segments", () => {
  const tracked = "018f0000-0000-7000-8000-000000000001";
  const untracked = "018f0000-0000-7000-8000-000000000002";
  const segments: SegmentMap = new Map([
    [tracked, { trackMembership: true, filters: only("data.plan", "equals", "never") }],
    [untracked, { trackMembership: false, filters: only("data.plan", "equals", "pro") }],
  ]);

  it("reads tracked membership from the facts and evaluates untracked filters", () => {
    const member = contact({ segments: new Set([tracked]) });
    expect(at(only(`segment.${tracked}`, "memberOfSegment"), member, { segments })).toBe(true);
    expect(at(only(`segment.${tracked}`, "memberOfSegment"), contact(), { segments })).toBe(false);
    expect(at(only(`segment.${untracked}`, "memberOfSegment"), contact(), { segments })).toBe(true);
    expect(at(only(`segment.${untracked}`, "notMemberOfSegment"), contact(), { segments })).toBe(false);
  });

  it("refuses unknown ids and cycles, naming the filter", () => {
    const unknown = () => at(only("segment.018f0000-0000-7000-8000-00000000ffff", "memberOfSegment"), contact(), { segments });
    expect(unknown).toThrow(FilterError);
    expect(unknown).toThrow(expect.objectContaining({ path: "groups.0.filters.0.field" }));
    const a = "018f0000-0000-7000-8000-00000000000a";
    const b = "018f0000-0000-7000-8000-00000000000b";
    const cyclic: SegmentMap = new Map([
      [a, { trackMembership: true, filters: only(`segment.${b}`, "memberOfSegment") }],
      [b, { trackMembership: false, filters: only(`segment.${a}`, "notMemberOfSegment") }],
    ]);
    expect(() => at(only(`segment.${a}`, "memberOfSegment"), contact(), { segments: cyclic })).toThrow(/cycle/);
    expect(() => at(cyclic.get(a)!.filters, contact(), { segments: cyclic, segmentId: a })).toThrow(/cycle/);
  });

  it("needs the membership set only when a tracked segment is named", () => {
    const facts = { ...contact(), segments: undefined };
    expect(() => at(only(`segment.${tracked}`, "memberOfSegment"), facts, { segments })).toThrow(/facts.segments/);
    expect(at(only(`segment.${untracked}`, "memberOfSegment"), facts, { segments })).toBe(true);
  });
});

describe("expressions", () => {
  it("ANDs a group's filters and conditions and joins groups by logic", () => {
    const yes = { field: "data.plan", operator: "equals" as const, value: "pro" };
    const no = { field: "data.plan", operator: "equals" as const, value: "free" };
    expect(at({ logic: "AND", groups: [] })).toBe(true);
    expect(at({ logic: "OR", groups: [] })).toBe(false);
    expect(at({ logic: "OR", groups: [{ filters: [] }] })).toBe(true);
    expect(at({ logic: "OR", groups: [{ filters: [no] }, { filters: [yes] }] })).toBe(true);
    expect(at({ logic: "AND", groups: [{ filters: [yes], conditions: { logic: "OR", groups: [{ filters: [no] }] } }] })).toBe(false);
  });

  it("names the unknown field or inapplicable operator", () => {
    const nested = { logic: "AND" as const, groups: [{ filters: [], conditions: only("nope", "exists") }] };
    expect(() => at(nested)).toThrow(expect.objectContaining({ path: "groups.0.conditions.groups.0.filters.0.field" }));
    expect(() => at(only("subscribed", "contains", "x"))).toThrow(expect.objectContaining({ path: "groups.0.filters.0.operator" }));
  });
});

describe("workflow dialect", () => {
  const ctx = { dialect: "workflow" as const, triggerEvent: { data: { amount: 42, item: { sku: "A-1" } } }, context: { plan: "trial" } };

  it("reads the trigger event's data and the context merged over the contact's data", () => {
    expect(at(only("event.amount", "greaterThan", 40), contact(), ctx)).toBe(true);
    expect(at(only("event.item.sku", "startsWith", "A-"), contact(), ctx)).toBe(true);
    expect(at(only("data.plan", "equals", "trial"), contact(), ctx)).toBe(true);
    expect(at(only("data.age", "equals", 36), contact(), ctx)).toBe(true);
    expect(at(only("event.amount", "exists"), contact(), { dialect: "workflow" })).toBe(false);
  });

  it("takes the short form", () => {
    expect(at({ field: "contact.subscribed", operator: "equals", value: true }, contact(), ctx)).toBe(true);
    expect(at({ field: "event.amount", operator: "lessThan", value: 40, logic: null }, contact(), ctx)).toBe(false);
  });
});

describe("the filter contract", () => {
  it("refuses strings PostgreSQL cannot compare as memory does", async () => {
    const { FilterExpression } = await import("@mailroom/contracts");
    const ok = (field: string, value: string) => FilterExpression.safeParse(only(field, "equals", value)).success;
    expect(ok("data.a", "😀 ok")).toBe(true);
    expect(ok("data.a", "a\u0000b")).toBe(false);
    expect(ok("data.a", "\uD83D")).toBe(false);
    expect(ok("data.a", "x\uDE00")).toBe(false);
    expect(ok("data.a\u0000", "x")).toBe(false);
  });
});

describe("topic", () => {
  const topics = new Map([["news", true], ["digest", false]]);

  it("reads the contact's choice, else the topic's default", () => {
    const facts = contact({ topics: { digest: true } });
    expect(at(only("topic.news", "equals", true), facts, { topics })).toBe(true);
    expect(at(only("topic.digest", "equals", true), facts, { topics })).toBe(true);
    expect(at(only("topic.news", "equals", true), contact({ topics: { news: false } }), { topics })).toBe(false);
    expect(at(only("topic.digest", "notEquals", true), contact(), { topics })).toBe(true);
  });

  it("refuses a topic that is not the project's, at the filter's field", () => {
    const err = (() => {
      try {
        at(only("topic.gone", "equals", true), contact(), { topics });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FilterError);
    expect((err as FilterError).path).toBe("groups.0.filters.0.field");
  });
});
