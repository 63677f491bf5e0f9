import fc from "fast-check";
import {
  EMAIL_ACTIVITIES,
  FIELD_FAMILIES,
  type Filter,
  type FilterExpression,
  type FilterOperator,
  NO_VALUE_OPERATORS,
  TIME_OPERATORS,
  resolveFilterField,
} from "@mailroom/contracts";
import type { SegmentMap } from "../src/index.js";
import { DAY, NOW } from "./helpers.js";
import type { SeedContact } from "./scratch-db.js";

/*
 * Small pools on purpose: filters and contacts draw from the same values, so equalities, prefixes
 * and boundaries actually hit, and the tricky cases (case, unicode, numeric strings, nulls, dates a
 * millisecond either side of a window edge) come up in every run.
 */
const HOUR = 3_600_000;
const MINUTE = 60_000;
const EDGES = [0, 1, 0.5, -1, -0.5].flatMap((d) => [7 * DAY + d, HOUR + d, 30 * MINUTE + d, 2 * DAY + d, DAY + d]);
/** An ISO string with microseconds, so that sub-millisecond precision in the database is covered. */
const isoAt = (msBeforeNow: number) => {
  const t = NOW.getTime() - msBeforeNow;
  const whole = Math.floor(t);
  const iso = new Date(whole).toISOString();
  return t === whole ? iso : iso.replace("Z", "500Z");
};
const withOffset = (iso: string) => {
  const d = new Date(Date.parse(iso) + 2 * HOUR).toISOString();
  return d.replace("Z", "+02:00");
};
export const INSTANTS = [...EDGES.map(isoAt), isoAt(-DAY), isoAt(30 * DAY), "2024-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z"];
export const DATE_STRINGS = [
  ...INSTANTS,
  withOffset(INSTANTS[0]!),
  "2024-01-01T01:00:00+01:00",
  "2024-02-30T00:00:00Z",
  "2024-04-31T00:00:00Z",
  "2023-02-29T00:00:00Z",
  "1000-02-29T00:00:00Z",
  "2000-02-29T00:00:00Z",
  "2024-01-01",
  "2024-01-01T00:00:00",
  "2024-01-01T00:00Z",
  "2024-01-01 00:00:00Z",
  "2024-01-01T24:00:00Z",
  "0999-01-01T00:00:00Z",
  "2024-01-01T00:00:00.1234567Z",
  "2024-01-01T00:00:00+15:00",
  "2024-01-01t00:00:00z",
];
export const TEXT = ["", "a", "A", "pro", "Pro", "PRO", "pr", "ro", "é", "É", "İ", "i", "ß", "SS", "😀", "a😀", "\uFFFD", "a\uFFFD", "\uE000", "5", "5.0", "36", "true", "null", "a%b", "a_b", "a\\b", "x.y", " pro ", "🎉pro", "Ωmega"];
const STRINGS = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TEXT) }, { weight: 2, arbitrary: fc.constantFrom(...DATE_STRINGS) }, fc.string({ maxLength: 4, unit: "grapheme" }));
export const NUMBER_VALUES = [0, -0, 1, 5, 5.5, -1, 36, 1e21, 0.1, 0.30000000000000004, 2 ** 53 + 2, // past 2^53: where number precision ends
  -1e-7, 1e-300];
const NUMBERS = fc.constantFrom(...NUMBER_VALUES);
const SCALAR = fc.oneof(STRINGS, NUMBERS, fc.boolean());

const KEYS = ["plan", "age", "tags", "profile", "tier", "since", "Plan", "é", "x.y"];
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    SCALAR,
    fc.array(SCALAR, { maxLength: 3 }),
    tie("object"),
  ),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie("value"), { maxKeys: 4 }),
})).value;
const data = fc.dictionary(fc.constantFrom(...KEYS), json, { maxKeys: 5 }) as fc.Arbitrary<Record<string, unknown>>;

export const LOCALS = ["ada", "Ada", "ADA", "a_b", "a%b", "élodie", "Élodie", "İpek", "x.y", "ß"];
export const DOMAINS = ["example.com", "Example.COM", "exämple.de"];
const EMAIL = fc.tuple(fc.constantFrom(...LOCALS), fc.constantFrom(...DOMAINS)).map(([l, d]) => `${l}@${d}`);
export const EMAIL_FRAGMENTS = ["ADA", "@example", ".COM", "a_", "%", "É", "é", "ß", "x.y@"];
const EMAIL_TEXT = fc.oneof(EMAIL, fc.constantFrom(...EMAIL_FRAGMENTS));
const EVENT_NAMES = ["signup", "Signup", "purchase", "plan.upgraded"];

export const SEGMENT_IDS = {
  tracked: "018f0000-0000-7000-8000-0000000000a1",
  untracked: "018f0000-0000-7000-8000-0000000000a2",
  nested: "018f0000-0000-7000-8000-0000000000a3",
};

/** The project's topics: one opted in by default, one out. A contact chooses for some, not all. */
export const TOPIC_IDS = { optIn: "018f0000-0000-7000-8000-0000000000b1", optOut: "018f0000-0000-7000-8000-0000000000b2" };
export const TOPICS: ReadonlyMap<string, boolean> = new Map([[TOPIC_IDS.optIn, true], [TOPIC_IDS.optOut, false]]);
const TOPIC_FIELDS = Object.values(TOPIC_IDS).map((id) => `topic.${id}`);

const DATA_FIELDS = ["data.plan", "data.age", "data.tags", "data.profile", "data.profile.tier", "data.profile.since", "data.Plan", "data.é", "data.missing", "data.tags.0", "data.profile.tier.age"];
const FIELDS = [
  "email", "contact.email", "subscribed", "contact.subscribed", "createdAt", "updatedAt",
  ...DATA_FIELDS, ...DATA_FIELDS,
  ...EVENT_NAMES.map((n) => `event.${n}`),
  ...EMAIL_ACTIVITIES.slice(0, 4).map((k) => `email.${k}`),
  ...TOPIC_FIELDS,
];
const SEGMENT_FIELDS = Object.values(SEGMENT_IDS).map((id) => `segment.${id}`);

function valueFor(op: FilterOperator, kind: string): fc.Arbitrary<Filter["value"]> {
  const scalar = kind === "string" ? EMAIL_TEXT : kind === "boolean" ? fc.boolean() : kind === "date" ? fc.constantFrom(...INSTANTS) : SCALAR;
  if (op === "in" || op === "notIn") return fc.array(scalar, { minLength: 1, maxLength: 4 }) as fc.Arbitrary<Filter["value"]>;
  if (["contains", "notContains", "startsWith", "endsWith"].includes(op)) return kind === "string" ? EMAIL_TEXT : STRINGS;
  if (op.endsWith("Than") || op.endsWith("ThanOrEqual")) return kind === "date" ? scalar : fc.oneof(NUMBERS, STRINGS);
  return scalar as fc.Arbitrary<Filter["value"]>;
}

export const WINDOW_VALUES: Array<[number, Filter["unit"]]> = [[7, "days"], [2, "days"], [1, "days"], [0.5, "days"], [1, "hours"], [24, "hours"], [30, "minutes"], [1440, "minutes"]];
const WINDOWS = fc.constantFrom(...WINDOW_VALUES);

function filterFor(fields: string[]): fc.Arbitrary<Filter> {
  return fc.constantFrom(...fields).chain((field) => {
    const family = FIELD_FAMILIES[resolveFilterField(field, "audience")!.family];
    return fc.constantFrom(...family.operators).chain((operator): fc.Arbitrary<Filter> => {
      if (NO_VALUE_OPERATORS.includes(operator)) return fc.constant({ field, operator });
      if (TIME_OPERATORS.includes(operator)) return WINDOWS.map(([value, unit]) => ({ field, operator, value, unit }));
      return valueFor(operator, family.kind).map((value) => ({ field, operator, value }));
    });
  });
}

export function expression(depth: number, fields: string[] = [...FIELDS, ...SEGMENT_FIELDS]): fc.Arbitrary<FilterExpression> {
  const group = fc.record(
    {
      filters: fc.array(filterFor(fields), { maxLength: 3 }),
      conditions: depth > 1 ? expression(depth - 1, fields) : fc.constant(undefined),
    },
    { requiredKeys: ["filters"] },
  ).map((g) => (g.conditions ? g : { filters: g.filters }));
  return fc.record({ logic: fc.constantFrom("AND" as const, "OR" as const), groups: fc.array(group, { maxLength: 3 }) });
}

/** The project's segments: one tracked, one untracked, one untracked that names both. */
export const segments: fc.Arbitrary<SegmentMap> = fc
  .tuple(expression(2, FIELDS), expression(2, FIELDS), expression(1, FIELDS))
  .map(([tracked, untracked, extra]) => new Map([
    [SEGMENT_IDS.tracked, { trackMembership: true, filters: tracked }],
    [SEGMENT_IDS.untracked, { trackMembership: false, filters: untracked }],
    [SEGMENT_IDS.nested, {
      trackMembership: false,
      filters: {
        logic: "OR",
        groups: [
          { filters: [{ field: `segment.${SEGMENT_IDS.tracked}`, operator: "memberOfSegment" }, { field: `segment.${SEGMENT_IDS.untracked}`, operator: "notMemberOfSegment" }] },
          ...extra.groups,
        ],
      },
    }],
  ]));

const instant = fc.constantFrom(...INSTANTS);
/** Contacts without ids: each run gives them fresh ones, as the tables are shared by all runs. */
export const contacts: fc.Arbitrary<Array<Omit<SeedContact, "id">>> = fc.array(
  fc.record({
    email: EMAIL,
    subscribed: fc.boolean(),
    data,
    createdAt: instant,
    updatedAt: instant,
    events: fc.array(fc.record({ name: fc.constantFrom(...EVENT_NAMES), createdAt: instant }), { maxLength: 4 }),
    emailActivity: fc.array(fc.record({ kind: fc.constantFrom(...EMAIL_ACTIVITIES), occurredAt: instant }), { maxLength: 3 }),
    segments: fc.boolean().map((member) => (member ? [SEGMENT_IDS.tracked] : [])),
    topics: fc.dictionary(fc.constantFrom(...Object.values(TOPIC_IDS)), fc.boolean(), { maxKeys: 2 }),
  }),
  { minLength: 1, maxLength: 10 },
);
