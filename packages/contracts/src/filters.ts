import { z } from "zod";
import { Timestamp } from "./common.js";

/**
 * The filter language of decisions.md §8 (segments, FILTERED audiences, CONDITION steps).
 * The SQL and in-memory evaluators are built from the constants below, so a new operator or field
 * family is added here first; the property test that holds the two evaluators together relies on
 * every operator of FILTER_OPERATORS being handled by both.
 */

export const TIME_UNITS = ["minutes", "hours", "days"] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export const VALUE_OPERATORS = [
  "equals",
  "notEquals",
  "contains",
  "notContains",
  "startsWith",
  "endsWith",
  "greaterThan",
  "lessThan",
  "greaterThanOrEqual",
  "lessThanOrEqual",
  "exists",
  "notExists",
  "in",
  "notIn",
] as const;
export const DATE_OPERATORS = ["within", "olderThan"] as const;
export const ACTIVITY_OPERATORS = [
  "triggered",
  "notTriggered",
  "triggeredWithin",
  "triggeredOlderThan",
  "notTriggeredWithin",
] as const;
export const SEGMENT_OPERATORS = ["memberOfSegment", "notMemberOfSegment"] as const;
export const FILTER_OPERATORS = [
  ...VALUE_OPERATORS,
  ...DATE_OPERATORS,
  ...ACTIVITY_OPERATORS,
  ...SEGMENT_OPERATORS,
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Operators whose `value` is a count of `unit`s (both required). */
export const TIME_OPERATORS: readonly FilterOperator[] = [
  "within",
  "olderThan",
  "triggeredWithin",
  "triggeredOlderThan",
  "notTriggeredWithin",
];
/** Operators that take no `value`. */
export const NO_VALUE_OPERATORS: readonly FilterOperator[] = [
  "exists",
  "notExists",
  "triggered",
  "notTriggered",
  "memberOfSegment",
  "notMemberOfSegment",
];
const STRING_OPERATORS = ["contains", "notContains", "startsWith", "endsWith"] as const;
const ORDER_OPERATORS = ["greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual"] as const;

export const EMAIL_ACTIVITIES = ["sent", "delivered", "opened", "clicked", "bounced", "complained"] as const;
export type EmailActivity = (typeof EMAIL_ACTIVITIES)[number];

/** What a field's values are, which decides the type `value` must have. */
export type FieldKind = "string" | "boolean" | "date" | "any" | "activity" | "membership";

export interface FieldFamily {
  /** Whole field names of the family (`email`), or */
  names?: readonly string[];
  /** the prefix before the family's key (`data.` + path). */
  prefix?: string;
  kind: FieldKind;
  operators: readonly FilterOperator[];
}

/**
 * Field families. `contact.email` / `contact.subscribed` are the workflow spellings of `email` /
 * `subscribed` and are accepted everywhere, so both evaluators map a family to one column.
 * `event.<x>` means a tracked event in audiences but a key of the triggering event's data in
 * CONDITION steps, hence the two families and the two dialects below.
 */
export const FIELD_FAMILIES = {
  email: {
    names: ["email", "contact.email"],
    kind: "string",
    operators: ["equals", "notEquals", ...STRING_OPERATORS, "in", "notIn", "exists", "notExists"],
  },
  subscribed: { names: ["subscribed", "contact.subscribed"], kind: "boolean", operators: ["equals", "notEquals"] },
  timestamp: { names: ["createdAt", "updatedAt"], kind: "date", operators: [...ORDER_OPERATORS, ...DATE_OPERATORS] },
  emailActivity: { names: EMAIL_ACTIVITIES.map((a) => `email.${a}`), kind: "activity", operators: ACTIVITY_OPERATORS },
  data: { prefix: "data.", kind: "any", operators: [...VALUE_OPERATORS, ...DATE_OPERATORS] },
  event: { prefix: "event.", kind: "activity", operators: ACTIVITY_OPERATORS },
  eventData: { prefix: "event.", kind: "any", operators: [...VALUE_OPERATORS, ...DATE_OPERATORS] },
  segment: { prefix: "segment.", kind: "membership", operators: SEGMENT_OPERATORS },
  /** `topic.<topicId>`: whether the contact is opted into the topic (its choice, else the topic's default). */
  topic: { prefix: "topic.", kind: "boolean", operators: ["equals", "notEquals"] },
} as const satisfies Record<string, FieldFamily>;
export type FieldFamilyName = keyof typeof FIELD_FAMILIES;

export type FilterDialect = "audience" | "workflow";
// `topic.<id>` is an audience field only: a workflow CONDITION reads the contact as the workflows
// service has it, without the project's topic defaults.
/** Families per dialect, in matching order (whole names before prefixes). */
export const DIALECT_FAMILIES: Record<FilterDialect, readonly FieldFamilyName[]> = {
  audience: ["email", "subscribed", "timestamp", "emailActivity", "data", "event", "segment", "topic"],
  workflow: ["email", "subscribed", "timestamp", "emailActivity", "data", "eventData", "segment"],
};

/** Finds a field's family and key (data path, event name, activity, segment id), or null if unknown. */
export function resolveFilterField(
  field: string,
  dialect: FilterDialect,
): { family: FieldFamilyName; key: string } | null {
  for (const name of DIALECT_FAMILIES[dialect]) {
    const family: FieldFamily = FIELD_FAMILIES[name];
    if (family.names?.includes(field)) return { family: name, key: field.slice(field.indexOf(".") + 1) };
    if (family.prefix && field.startsWith(family.prefix)) {
      const key = field.slice(family.prefix.length);
      // data paths walk objects, so every dot-separated segment must be non-empty
      const valid = name === "data" || name === "eventData" ? key.split(".").every((s) => s !== "") : key !== "";
      return valid ? { family: name, key } : null;
    }
  }
  return null;
}

/**
 * Filter strings end up as PostgreSQL text parameters, which cannot hold NUL, and as jsonb, which
 * refuses lone surrogates (and UTF-8 encoding would silently turn one into U+FFFD, so SQL and memory
 * would compare different strings). Data stored in jsonb can hold neither, so nothing is lost.
 */
const LONE_SURROGATE_OR_NUL = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const filterText = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !LONE_SURROGATE_OR_NUL.test(s), { message: "must not contain NUL or unpaired surrogates" });

const Scalar = z.union([filterText(0, 1000), z.number(), z.boolean()]);
export const FilterValue = z.union([Scalar, z.array(Scalar).min(1).max(1000)]);
export type FilterValue = z.infer<typeof FilterValue>;

const FilterShape = z.object({
  field: filterText(1, 300),
  operator: z.enum(FILTER_OPERATORS),
  value: FilterValue.optional(),
  unit: z.enum(TIME_UNITS).optional(),
});
export type Filter = z.infer<typeof FilterShape>;

const isScalarOf = (kind: FieldKind, v: unknown): boolean => {
  if (kind === "string") return typeof v === "string";
  if (kind === "boolean") return typeof v === "boolean";
  if (kind === "date") return Timestamp.safeParse(v).success;
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
};

/** Why `value` does not fit the operator on a field of this kind, or null when it fits. */
function valueProblem(op: FilterOperator, kind: FieldKind, value: unknown): string | null {
  if (NO_VALUE_OPERATORS.includes(op)) return value === undefined ? null : `operator ${op} takes no value`;
  if (value === undefined) return `operator ${op} needs a value`;
  if (TIME_OPERATORS.includes(op)) {
    return typeof value === "number" && Number.isFinite(value) && value > 0
      ? null
      : `operator ${op} needs a positive number of units`;
  }
  if (op === "in" || op === "notIn") {
    return Array.isArray(value) && value.every((v) => isScalarOf(kind, v))
      ? null
      : `operator ${op} needs a non-empty array of ${kind === "any" ? "strings, numbers or booleans" : `${kind} values`}`;
  }
  if ((STRING_OPERATORS as readonly string[]).includes(op)) {
    return typeof value === "string" ? null : `operator ${op} needs a string`;
  }
  if ((ORDER_OPERATORS as readonly string[]).includes(op)) {
    if (kind === "date") return isScalarOf("date", value) ? null : `operator ${op} needs an ISO 8601 date-time`;
    return typeof value === "number" || typeof value === "string" ? null : `operator ${op} needs a number or a string`;
  }
  return isScalarOf(kind, value) ? null : `operator ${op} needs a ${kind === "any" ? "string, number or boolean" : kind} value`;
}

function checkFilter(filter: Filter, dialect: FilterDialect, ctx: z.RefinementCtx): void {
  const resolved = resolveFilterField(filter.field, dialect);
  if (!resolved) {
    ctx.addIssue({ code: "custom", path: ["field"], message: `unknown filter field "${filter.field}"` });
    return;
  }
  const family: FieldFamily = FIELD_FAMILIES[resolved.family];
  if (!family.operators.includes(filter.operator)) {
    ctx.addIssue({
      code: "custom",
      path: ["operator"],
      message: `operator ${filter.operator} does not apply to ${filter.field} (use one of ${family.operators.join(", ")})`,
    });
    return;
  }
  const isTime = TIME_OPERATORS.includes(filter.operator);
  if (isTime && filter.unit === undefined) {
    ctx.addIssue({ code: "custom", path: ["unit"], message: `operator ${filter.operator} needs a unit (${TIME_UNITS.join("|")})` });
  }
  if (!isTime && filter.unit !== undefined) {
    ctx.addIssue({ code: "custom", path: ["unit"], message: `operator ${filter.operator} takes no unit` });
  }
  const problem = valueProblem(filter.operator, family.kind, filter.value);
  if (problem) ctx.addIssue({ code: "custom", path: ["value"], message: problem });
}

/**
 * Expressions nest at most FILTER_MAX_DEPTH levels (the top expression is level 1). The levels are
 * built as distinct schemas rather than one recursive schema so that a hostile, deeply nested body is
 * refused at level 6 instead of recursing until the stack runs out; the JSON Schema stays exact too.
 */
export const FILTER_MAX_DEPTH = 5;
const MAX_GROUPS = 50;
const MAX_FILTERS = 50;
export const FILTER_LOGIC = ["AND", "OR"] as const;

export interface FilterGroup {
  filters: Filter[];
  conditions?: FilterExpression | undefined;
}
export interface FilterExpression {
  logic: (typeof FILTER_LOGIC)[number];
  groups: FilterGroup[];
}

function filterSchema(dialect: FilterDialect) {
  return FilterShape.superRefine((filter, ctx) => checkFilter(filter, dialect, ctx));
}

type ExpressionSchema = z.ZodObject<{
  logic: z.ZodEnum<{ AND: "AND"; OR: "OR" }>;
  groups: z.ZodArray<
    z.ZodObject<{
      filters: z.ZodArray<ReturnType<typeof filterSchema>>;
      conditions: z.ZodOptional<z.ZodType<FilterExpression>>;
    }>
  >;
}>;

function expressionSchema(dialect: FilterDialect, level = 1): ExpressionSchema {
  const conditions =
    level < FILTER_MAX_DEPTH
      ? expressionSchema(dialect, level + 1).optional()
      : z.never({ error: `filter expressions nest at most ${FILTER_MAX_DEPTH} levels` }).optional();
  return z.object({
    logic: z.enum(FILTER_LOGIC),
    groups: z.array(z.object({ filters: z.array(filterSchema(dialect)).max(MAX_FILTERS), conditions })).max(MAX_GROUPS),
  });
}

/** Segments and FILTERED campaign audiences. An empty `groups` matches everyone under AND, no one under OR. */
export const Filter = filterSchema("audience");
export const FilterExpression = expressionSchema("audience");

/** CONDITION steps: `event.<key>` reads the triggering event's data. */
export const WorkflowFilter = filterSchema("workflow");
export type WorkflowFilter = Filter;
export const WorkflowFilterExpression = expressionSchema("workflow");
export type WorkflowFilterExpression = FilterExpression;

/**
 * A CONDITION step's config: an expression, or the short form `{field, operator, value}`.
 * The union is discriminated on `logic` (absent in the short form) so that a mistake in either form
 * is reported at its own path instead of as one opaque "invalid union" issue.
 */
export const ConditionConfig = z.discriminatedUnion("logic", [
  WorkflowFilterExpression,
  FilterShape.extend({ logic: z.null().optional() }).superRefine((f, ctx) => checkFilter(f, "workflow", ctx)),
]);
export type ConditionConfig = z.infer<typeof ConditionConfig>;
