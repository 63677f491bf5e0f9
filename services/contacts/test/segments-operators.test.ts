import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { FILTER_OPERATORS } from "@mailroom/contracts";
import { newProject, waitFor } from "@mailroom/testkit/shared";
import { Bus, emailEvent } from "./helpers.js";

/**
 * Every operator of the filter language through the API, on real contacts, events and email
 * activity. Each case runs twice: as a tracked segment created before the data (so its members come
 * from the in-memory evaluator, one change at a time) and as an untracked segment created after (its
 * count and members come from the SQL compiler). Both must give the expected contacts.
 */
type Name = "alice" | "bob" | "carol";
type F = { field: string; operator: string; value?: unknown; unit?: string };
type Case = { name: string; filters: unknown; expected: Name[] };

const tag = randomUUID().slice(0, 8);
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const emails: Record<Name, string> = {
  alice: `alice.${tag}@example.com`,
  bob: `Bob.${tag}@Test.org`,
  carol: `carol.${tag}@example.com`,
};
const one = (f: F) => ({ logic: "AND", groups: [{ filters: [f] }] });
const c = (name: string, f: F, expected: Name[]): Case => ({ name, filters: one(f), expected });

let p: Awaited<ReturnType<typeof newProject>>;
let bus: Bus;
let pro: { id: string };
let proTracked: { id: string };

function cases(): Case[] {
  return [
    c("email equals (case-insensitive)", { field: "email", operator: "equals", value: emails.alice.toUpperCase() }, ["alice"]),
    c("email notEquals", { field: "email", operator: "notEquals", value: emails.alice }, ["bob", "carol"]),
    c("email contains", { field: "email", operator: "contains", value: "@EXAMPLE.com" }, ["alice", "carol"]),
    c("email notContains", { field: "email", operator: "notContains", value: "@example" }, ["bob"]),
    c("email startsWith", { field: "email", operator: "startsWith", value: "bob." }, ["bob"]),
    c("email endsWith", { field: "email", operator: "endsWith", value: "@test.org" }, ["bob"]),
    c("email in", { field: "email", operator: "in", value: [emails.alice, emails.carol.toUpperCase()] }, ["alice", "carol"]),
    c("email notIn", { field: "email", operator: "notIn", value: [emails.alice] }, ["bob", "carol"]),
    c("email exists", { field: "email", operator: "exists" }, ["alice", "bob", "carol"]),
    c("email notExists", { field: "email", operator: "notExists" }, []),
    c("subscribed equals", { field: "subscribed", operator: "equals", value: false }, ["bob"]),
    c("subscribed notEquals", { field: "subscribed", operator: "notEquals", value: false }, ["alice", "carol"]),
    c("data equals (case-sensitive)", { field: "data.plan", operator: "equals", value: "PRO" }, []),
    c("data equals", { field: "data.plan", operator: "equals", value: "pro" }, ["alice"]),
    c("data equals a boolean", { field: "data.vip", operator: "equals", value: true }, ["alice"]),
    c("data notEquals (missing is true)", { field: "data.plan", operator: "notEquals", value: "pro" }, ["bob", "carol"]),
    c("data contains", { field: "data.plan", operator: "contains", value: "re" }, ["bob"]),
    c("data contains in an array", { field: "data.tags", operator: "contains", value: "b" }, ["alice"]),
    c("data notContains (missing is true)", { field: "data.plan", operator: "notContains", value: "r" }, ["carol"]),
    c("data startsWith, nested path", { field: "data.city.name", operator: "startsWith", value: "Par" }, ["alice"]),
    c("data endsWith, nested path", { field: "data.city.name", operator: "endsWith", value: "lin" }, ["bob"]),
    c("data greaterThan a number", { field: "data.age", operator: "greaterThan", value: 17 }, ["alice"]),
    c("data lessThan a number", { field: "data.age", operator: "lessThan", value: 30 }, ["bob"]),
    c("data greaterThanOrEqual", { field: "data.age", operator: "greaterThanOrEqual", value: 17 }, ["alice", "bob"]),
    c("data lessThanOrEqual", { field: "data.age", operator: "lessThanOrEqual", value: 17 }, ["bob"]),
    c("data greaterThan a fraction", { field: "data.score", operator: "greaterThan", value: 4 }, ["alice"]),
    c("data greaterThan an ISO date", { field: "data.renewsAt", operator: "greaterThan", value: iso(now) }, ["alice"]),
    c("data exists", { field: "data.vip", operator: "exists" }, ["alice", "bob"]),
    c("data notExists", { field: "data.vip", operator: "notExists" }, ["carol"]),
    c("data in", { field: "data.plan", operator: "in", value: ["pro", "enterprise"] }, ["alice"]),
    c("data notIn", { field: "data.plan", operator: "notIn", value: ["pro"] }, ["bob", "carol"]),
    c("data within", { field: "data.trialEndedAt", operator: "within", value: 1, unit: "days" }, ["bob"]),
    c("data olderThan", { field: "data.trialEndedAt", operator: "olderThan", value: 1, unit: "days" }, ["alice"]),
    c("createdAt within", { field: "createdAt", operator: "within", value: 1, unit: "hours" }, ["alice", "bob", "carol"]),
    c("createdAt olderThan", { field: "createdAt", operator: "olderThan", value: 1, unit: "hours" }, []),
    c("updatedAt lessThan", { field: "updatedAt", operator: "lessThan", value: iso(now + HOUR) }, ["alice", "bob", "carol"]),
    c("event triggered", { field: "event.purchase", operator: "triggered" }, ["alice"]),
    c("event notTriggered", { field: "event.purchase", operator: "notTriggered" }, ["bob", "carol"]),
    c("event triggeredWithin", { field: "event.purchase", operator: "triggeredWithin", value: 1, unit: "hours" }, ["alice"]),
    c("event triggeredOlderThan", { field: "event.purchase", operator: "triggeredOlderThan", value: 1, unit: "hours" }, []),
    c("event notTriggeredWithin", { field: "event.purchase", operator: "notTriggeredWithin", value: 1, unit: "hours" }, ["bob", "carol"]),
    c("email activity triggered", { field: "email.clicked", operator: "triggered" }, ["bob"]),
    c("email activity notTriggered", { field: "email.opened", operator: "notTriggered" }, ["carol"]),
    c("email activity triggeredWithin", { field: "email.opened", operator: "triggeredWithin", value: 7, unit: "days" }, ["bob"]),
    c("email activity triggeredOlderThan", { field: "email.opened", operator: "triggeredOlderThan", value: 7, unit: "days" }, ["alice"]),
    c("email activity notTriggeredWithin", { field: "email.opened", operator: "notTriggeredWithin", value: 7, unit: "days" }, ["alice", "carol"]),
    c("memberOfSegment (untracked)", { field: `segment.${pro.id}`, operator: "memberOfSegment" }, ["alice"]),
    c("notMemberOfSegment (untracked)", { field: `segment.${pro.id}`, operator: "notMemberOfSegment" }, ["bob", "carol"]),
    c("memberOfSegment (tracked)", { field: `segment.${proTracked.id}`, operator: "memberOfSegment" }, ["alice"]),
    c("notMemberOfSegment (tracked)", { field: `segment.${proTracked.id}`, operator: "notMemberOfSegment" }, ["bob", "carol"]),
    {
      name: "OR of groups, each ANDed with nested conditions",
      filters: {
        logic: "OR",
        groups: [
          { filters: [{ field: "data.plan", operator: "equals", value: "pro" }], conditions: { logic: "OR", groups: [{ filters: [{ field: "subscribed", operator: "equals", value: false }] }] } },
          { filters: [{ field: "subscribed", operator: "equals", value: false }], conditions: { logic: "AND", groups: [{ filters: [{ field: "email.clicked", operator: "triggered" }] }] } },
        ],
      },
      expected: ["bob"],
    },
    { name: "no groups under AND is everyone", filters: { logic: "AND", groups: [] }, expected: ["alice", "bob", "carol"] },
    { name: "no groups under OR is no one", filters: { logic: "OR", groups: [] }, expected: [] },
  ];
}

const ids: Partial<Record<Name, string>> = {};
const namesOf = (members: Array<{ id: string }>) =>
  members.map((m) => (Object.keys(ids) as Name[]).find((n) => ids[n] === m.id) ?? m.id).sort();

async function members(segmentId: string): Promise<string[]> {
  const res = await p.api.get(`/segments/${segmentId}/contacts?limit=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return namesOf(res.body.data);
}

const tracked: Array<{ case: Case; id: string }> = [];

beforeAll(async () => {
  [p, bus] = await Promise.all([newProject("segments-operators"), Bus.open()]);
  const proFilter = one({ field: "data.plan", operator: "equals", value: "pro" });
  pro = (await p.api.post("/segments", { name: "Pro", filters: proFilter })).body;
  proTracked = (await p.api.post("/segments", { name: "Pro tracked", filters: proFilter, trackMembership: true })).body;
  // Tracked segments first, while the project is empty: their members will come from the tracker.
  for (const k of cases()) {
    const res = await p.api.post("/segments", { name: `T ${k.name}`, filters: k.filters, trackMembership: true });
    expect(res.status, `${k.name}: ${JSON.stringify(res.body)}`).toBe(201);
    tracked.push({ case: k, id: res.body.id });
  }
  const create = async (name: Name, subscribed: boolean, data: Record<string, unknown>) => {
    ids[name] = (await p.api.post("/contacts", { email: emails[name], subscribed, data })).body.id;
  };
  await create("alice", true, {
    plan: "pro",
    age: 30,
    score: 4.5,
    vip: true,
    city: { name: "Paris" },
    tags: ["a", "b"],
    renewsAt: iso(now + 5 * DAY),
    trialEndedAt: iso(now - 10 * DAY),
  });
  await create("bob", false, { plan: "free", age: 17, vip: false, city: { name: "Berlin" }, trialEndedAt: iso(now - HOUR) });
  await create("carol", true, {});
  await p.api.post("/v1/track", { email: emails.alice, event: "purchase" });
  await bus.publishEmailEvent(emailEvent(p.id, ids.alice!, "email.open", { isFirstOpen: true }, new Date(now - 30 * DAY)));
  await bus.publishEmailEvent(emailEvent(p.id, ids.bob!, "email.open", { isFirstOpen: true }));
  await bus.publishEmailEvent(emailEvent(p.id, ids.bob!, "email.click", { isFirstClick: true }));
}, 60_000);
afterAll(() => bus?.close());

describe("every operator through the API on real data", () => {
  it("covers every operator of the language", () => {
    const used = new Set(cases().flatMap((k) => JSON.stringify(k.filters).match(/"operator":"(\w+)"/g) ?? []));
    for (const op of FILTER_OPERATORS) expect(used, op).toContain(`"operator":"${op}"`);
  });

  it("tracked segments (in-memory evaluation per change) reach the expected members", async () => {
    const expected = Object.fromEntries(tracked.map((t) => [t.case.name, [...t.case.expected].sort()]));
    let got: Record<string, string[]> = {};
    await waitFor(
      async () => {
        got = Object.fromEntries(await Promise.all(tracked.map(async (t) => [t.case.name, await members(t.id)] as const)));
        return JSON.stringify(got) === JSON.stringify(expected) ? true : null;
      },
      { what: "tracked memberships", timeoutMs: 15_000, intervalMs: 500 },
    ).catch(() => undefined);
    expect(got).toEqual(expected);
  });

  it("untracked segments (SQL) count and list the expected members", async () => {
    const got: Record<string, [number, string[]]> = {};
    const expected: Record<string, [number, string[]]> = {};
    for (const k of cases()) {
      const res = await p.api.post("/segments", { name: `U ${k.name}`, filters: k.filters });
      expect(res.status, `${k.name}: ${JSON.stringify(res.body)}`).toBe(201);
      got[k.name] = [res.body.memberCount, await members(res.body.id)];
      expected[k.name] = [k.expected.length, [...k.expected].sort()];
    }
    expect(got).toEqual(expected);
  });
});
