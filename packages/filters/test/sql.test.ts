import { randomUUID } from "node:crypto";
import type { FilterExpression } from "@mailroom/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FilterError, compileFilter, type SegmentMap } from "../src/index.js";
import { DAY, NOW, ago, only } from "./helpers.js";
import { type ScratchDb, type SeedContact, matchingIds, scratchDatabase } from "./scratch-db.js";

const person = (email: string, over: Partial<SeedContact> = {}): SeedContact => ({
  id: randomUUID(), email, subscribed: true, data: {}, createdAt: ago(30 * DAY).toISOString(), updatedAt: ago(DAY).toISOString(),
  events: [], emailActivity: [], segments: [], ...over,
});

describe("compileFilter in PostgreSQL", () => {
  let db: ScratchDb;
  const projectId = randomUUID();
  const tracked = randomUUID();
  const untracked = randomUUID();
  const segments: SegmentMap = new Map([
    [tracked, { trackMembership: true, filters: only("data.plan", "equals", "ignored: membership is stored") }],
    [untracked, { trackMembership: false, filters: only("event.signup", "triggered") }],
  ]);
  const ada = person("Ada@Example.com", { data: { plan: "pro", name: "O'Brien" }, emailActivity: [{ kind: "opened", occurredAt: ago(3 * DAY).toISOString() }], segments: [tracked] });
  const bob = person("bob@example.com", { data: { plan: "pro" }, events: [{ name: "signup", createdAt: ago(40 * DAY).toISOString() }] });
  const cy = person("cy@example.com", { subscribed: false, data: { plan: "free" }, events: [{ name: "signup", createdAt: ago(DAY).toISOString() }] });
  const emailOf = new Map([ada, bob, cy].map((p) => [p.id, p.email]));
  const run = async (expr: FilterExpression) =>
    [...(await matchingIds(db.sql, projectId, compileFilter(expr, { now: NOW, segments, paramOffset: 1 })))].map((id) => emailOf.get(id)).sort();

  beforeAll(async () => {
    db = await scratchDatabase();
    await db.addSegments(projectId, [tracked, untracked]);
    await db.seed(projectId, [ada, bob, cy]);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("answers the example of decisions.md §8", async () => {
    const example: FilterExpression = {
      logic: "AND",
      groups: [
        { filters: [{ field: "subscribed", operator: "equals", value: true }, { field: "data.plan", operator: "equals", value: "pro" }] },
        {
          filters: [],
          conditions: {
            logic: "OR",
            groups: [
              { filters: [{ field: "email.opened", operator: "triggeredWithin", value: 14, unit: "days" }] },
              { filters: [{ field: "event.signup", operator: "triggered" }] },
            ],
          },
        },
      ],
    };
    expect(await run(example)).toEqual(["Ada@Example.com", "bob@example.com"]);
    expect(await run({ ...example, logic: "OR" })).toEqual(["Ada@Example.com", "bob@example.com", "cy@example.com"]);
  });

  it("reads tracked membership from segment_members and inlines untracked segments", async () => {
    expect(await run(only(`segment.${tracked}`, "memberOfSegment"))).toEqual(["Ada@Example.com"]);
    expect(await run(only(`segment.${untracked}`, "memberOfSegment"))).toEqual(["bob@example.com", "cy@example.com"]);
    expect(await run(only(`segment.${untracked}`, "notMemberOfSegment"))).toEqual(["Ada@Example.com"]);
  });

  it("matches email case-insensitively and event windows at their edges", async () => {
    expect(await run(only("email", "equals", "ADA@example.COM"))).toEqual(["Ada@Example.com"]);
    expect(await run(only("email", "contains", "B@EX"))).toEqual(["bob@example.com"]);
    expect(await run(only("event.signup", "triggeredWithin", 1, "days"))).toEqual(["cy@example.com"]);
    expect(await run(only("event.signup", "notTriggeredWithin", 24, "hours"))).toEqual(["Ada@Example.com", "bob@example.com"]);
    expect(await run(only("event.signup", "triggeredOlderThan", 39, "days"))).toEqual(["bob@example.com"]);
  });

  it("sends values as parameters numbered from the offset, never in the text", () => {
    const compiled = compileFilter(only("data.name", "in", ["O'Brien", "x"]), { now: NOW, paramOffset: 4 });
    expect(compiled.text).not.toContain("Brien");
    expect(compiled.text).toContain("$5::text");
    expect(compiled.text).toContain("$6::text::jsonb");
    expect(compiled.text).not.toMatch(/\$[1-4]\b|\$7/);
    expect(compiled.values).toEqual(["name", JSON.stringify(["O'Brien", "x"])]);
  });

  it("refuses unknown segments and cycles with the path of the filter", () => {
    const unknown = randomUUID();
    const compile = (expr: FilterExpression, segmentId?: string) => () => compileFilter(expr, { now: NOW, segments, segmentId });
    expect(compile({ logic: "OR", groups: [{ filters: [], conditions: only(`segment.${unknown}`, "memberOfSegment") }] })).toThrow(
      expect.objectContaining({ name: "FilterError", path: "groups.0.conditions.groups.0.filters.0.field" }),
    );
    expect(compile(only(`segment.${untracked}`, "memberOfSegment"), untracked)).toThrow(FilterError);
    expect(compile(only("event.plan", "equals", "pro"))).toThrow(/operator equals does not apply to event.plan/);
  });

  it("lets the indexes answer events, email activity and email search", async () => {
    const plan = async (expr: FilterExpression, scope: "contact" | "project" | "none") => {
      const compiled = compileFilter(expr, { now: NOW, paramOffset: 1 });
      const where = { contact: "c.id = $1::uuid", project: "c.project_id = $1::uuid", none: "$1::uuid IS NOT NULL" }[scope];
      const value = scope === "contact" ? randomUUID() : projectId;
      return db.sql.begin(async (tx) => {
        // tiny tables would be scanned anyway; the question is whether the index CAN serve the predicate
        await tx`SET LOCAL enable_seqscan = off`;
        const rows = await tx.unsafe(`EXPLAIN SELECT c.id FROM contacts c WHERE ${where} AND ${compiled.text}`, [value, ...compiled.values]);
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
    };
    // one contact (membership checks): the (contact_id, key, time) indexes
    expect(await plan(only("event.signup", "triggeredWithin", 7, "days"), "contact")).toContain("contact_events_contact");
    expect(await plan(only("email.opened", "triggeredWithin", 7, "days"), "contact")).toContain("email_activity_contact");
    // a whole project (counts, audiences): the window is read from (project_id, key, time, contact_id) alone
    expect(await plan(only("event.signup", "triggeredWithin", 7, "days"), "project")).toMatch(/Index Only Scan using contact_events_project/);
    expect(await plan(only("email.opened", "triggeredWithin", 7, "days"), "project")).toMatch(/Index Only Scan using email_activity_project/);
    expect(await plan(only("email", "contains", "lovelace"), "none")).toContain("contacts_email_trgm");
  });
});
