import { EMAIL_ACTIVITIES, type Filter, FilterExpression, NO_VALUE_OPERATORS, TIME_OPERATORS } from "@mailroom/contracts";
import { afterAll, beforeAll, describe, it } from "vitest";
import { DATE_STRINGS, DOMAINS, EMAIL_FRAGMENTS, INSTANTS, LOCALS, NUMBER_VALUES, TEXT, WINDOW_VALUES } from "./arbitraries.js";
import { expectAgreement } from "./agree.js";
import { type ScratchDb, type SeedContact, scratchDatabase } from "./scratch-db.js";

/*
 * The random property test rarely puts a given tricky value under a given operator. Here every
 * operator of each family meets every pooled value, as a cross product: one contact per stored
 * value, one filter per (operator, filter value), one query.
 */
const single = (filter: Filter): FilterExpression => ({ logic: "AND", groups: [{ filters: [filter] }] });
const base: Omit<SeedContact, "id"> = {
  email: "x@example.com", subscribed: true, data: {}, createdAt: INSTANTS[0]!, updatedAt: INSTANTS[0]!, events: [], emailActivity: [], segments: [],
};
/** Contacts of a project must have distinct emails (a unique index); these tests are not about email. */
const distinctEmails = (people: Array<Omit<SeedContact, "id">>) => people.map((p, i) => ({ ...p, email: `x${i}@example.com` }));
const SCALARS = [...TEXT, ...DATE_STRINGS, ...NUMBER_VALUES, true, false];
const STORED = [...SCALARS, null, [], ["pro", "a😀", 5], [["pro"]], {}, { tier: "gold" }];
const ORDER = ["greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual"] as const;
const TEXT_OPS = ["contains", "notContains", "startsWith", "endsWith"] as const;
const windows = (field: string, ops: readonly Filter["operator"][]) =>
  ops.flatMap((operator) => WINDOW_VALUES.map(([value, unit]) => ({ field, operator, value, unit })));

function valueFilters(field: string, scalars: readonly (string | number | boolean)[], strings: readonly string[]): Filter[] {
  return [
    ...(["equals", "notEquals"] as const).flatMap((operator) => scalars.map((value) => ({ field, operator, value }))),
    ...TEXT_OPS.flatMap((operator) => strings.map((value) => ({ field, operator, value }))),
    ...(["in", "notIn"] as const).flatMap((operator) => [[...scalars.slice(0, 7)], ["pro", 5, true], [0, "0", false]].map((value) => ({ field, operator, value }))),
    { field, operator: "exists" },
    { field, operator: "notExists" },
  ];
}

describe("every operator meets every pooled value, in SQL and in memory alike", () => {
  let db: ScratchDb;
  beforeAll(async () => {
    db = await scratchDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("on data values", async () => {
    const people = [base, ...STORED.map((v) => ({ ...base, data: { v, o: { v } } }))];
    const filters = [
      ...valueFilters("data.v", SCALARS, TEXT),
      ...ORDER.flatMap((operator) => [...TEXT, ...DATE_STRINGS, ...NUMBER_VALUES].map((value) => ({ field: "data.o.v", operator, value }))),
      ...windows("data.v", ["within", "olderThan"]),
    ];
    await expectAgreement(db, distinctEmails(people), filters.map(single));
  });

  it("on emails", async () => {
    // case variants of one address cannot share a project (unique lower(email)), hence the numbers
    const emails = LOCALS.flatMap((l, i) => DOMAINS.map((d, j) => `${l}${i * 3 + j}@${d}`));
    const people = emails.map((email) => ({ ...base, email }));
    const variants = emails.flatMap((e) => [e, e.toUpperCase(), e.toLowerCase()]);
    const strings = [...variants, ...EMAIL_FRAGMENTS, ...LOCALS, ""];
    await expectAgreement(db, people, valueFilters("email", strings, strings).filter((f) => !Array.isArray(f.value) || f.value.every((v) => typeof v === "string")).map(single));
  });

  it("on timestamps, events and email activity", async () => {
    const people = INSTANTS.map((at) => ({
      ...base, createdAt: at, updatedAt: at, events: [{ name: "signup", createdAt: at }], emailActivity: EMAIL_ACTIVITIES.map((kind) => ({ kind, occurredAt: at })),
    }));
    const activityOps = ["triggered", "notTriggered", "triggeredWithin", "triggeredOlderThan", "notTriggeredWithin"] as const;
    const filters: Filter[] = [
      ...ORDER.flatMap((operator) => INSTANTS.map((value) => ({ field: "createdAt", operator, value }))),
      ...windows("updatedAt", ["within", "olderThan"]),
      ...["event.signup", "event.other", "email.opened"].flatMap((field) => [
        ...windows(field, activityOps.filter((op) => TIME_OPERATORS.includes(op))),
        ...activityOps.filter((op) => NO_VALUE_OPERATORS.includes(op)).map((operator) => ({ field, operator })),
      ]),
    ];
    await expectAgreement(db, distinctEmails([...people, base]), filters.map(single));
  });
});
