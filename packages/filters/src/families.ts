import {
  FIELD_FAMILIES,
  type FieldFamily,
  type FieldFamilyName,
  type Filter,
  type FilterDialect,
  type FilterOperator,
  resolveFilterField,
} from "@mailroom/contracts";
import { ACTIVITY_OPERATOR_DEFS, type ActivityOperator, type ActivitySource } from "./activity.js";
import { FilterError } from "./errors.js";
import type { ContactFacts, TopicDefaults } from "./facts.js";
import { type MemOperand, type SqlOperand, VALUE_OPERATOR_DEFS, type ValueOperator } from "./operators.js";
import type { SqlParams } from "./sql.js";
import { instant } from "./time.js";

/** What the in-memory side of a value family reads, beyond the contact's facts. */
export interface MemoryScope {
  facts: ContactFacts;
  /** The default of a topic of the project (checked to exist when the leaf was resolved). */
  topicDefault(id: string): boolean;
  /** `data.<path>` root: the contact's data, or in a workflow the data merged with the context. */
  data(): unknown;
  triggerData: unknown;
}

interface ValueFamily {
  memory(key: string, scope: MemoryScope): MemOperand;
  sql(key: string, p: SqlParams, topics: TopicDefaults | undefined): SqlOperand;
}

/** Walks objects only (an array is not walked: `tags.0` is missing), own keys only. */
export function walkPath(root: unknown, path: readonly string[]): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

// `->` with a text key yields NULL on arrays and scalars, which is the same "objects only" walk.
const sqlPath = (key: string, p: SqlParams) => ["c.data", ...key.split(".").map((k) => p.add(k, "text"))].join(" -> ");

const VALUE_FAMILIES: Partial<Record<FieldFamilyName, ValueFamily>> = {
  email: {
    memory: (_, s) => ({ type: "email", value: s.facts.email }),
    sql: () => ({ type: "email", expr: "c.email" }),
  },
  subscribed: {
    memory: (_, s) => ({ type: "boolean", value: s.facts.subscribed }),
    sql: () => ({ type: "boolean", expr: "c.subscribed" }),
  },
  timestamp: {
    memory: (key, s) => ({ type: "timestamp", value: key === "createdAt" ? s.facts.createdAt : s.facts.updatedAt }),
    sql: (key) => ({ type: "timestamp", expr: key === "createdAt" ? "c.created_at" : "c.updated_at" }),
  },
  data: {
    memory: (key, s) => ({ type: "json", value: walkPath(s.data(), key.split(".")) }),
    sql: (key, p) => ({ type: "json", expr: sqlPath(key, p) }),
  },
  // The contact's choice, else the topic's default: never missing, so never NULL in SQL either.
  topic: {
    memory: (key, s) => ({ type: "boolean", value: s.facts.topics?.[key] ?? s.topicDefault(key) }),
    sql: (key, p, topics) => ({
      type: "boolean",
      expr: `COALESCE((c.topics ->> ${p.add(key, "text")})::boolean, ${topics?.get(key) === true ? "TRUE" : "FALSE"})`,
    }),
  },
  eventData: {
    memory: (key, s) => ({ type: "json", value: walkPath(s.triggerData, key.split(".")) }),
    sql: () => {
      throw new Error("event data fields exist only in workflow conditions, which are evaluated in memory");
    },
  },
};

interface ActivityFamily {
  memory(key: string, facts: ContactFacts): number[];
  source: ActivitySource;
}

const ACTIVITY_FAMILIES: Partial<Record<FieldFamilyName, ActivityFamily>> = {
  event: {
    memory: (name, facts) => facts.events.filter((e) => e.name === name).map((e) => instant(e.createdAt)),
    source: { table: "contact_events", alias: "e", keyColumn: "name", timeColumn: "created_at" },
  },
  emailActivity: {
    memory: (kind, facts) => facts.emailActivity.filter((a) => a.kind === kind).map((a) => instant(a.occurredAt)),
    source: { table: "email_activity", alias: "a", keyColumn: "kind", timeColumn: "occurred_at" },
  },
};

/** One filter, resolved against its dialect: what it reads and the operator's definition. */
export type Leaf =
  | { kind: "value"; family: FieldFamilyName; key: string; field: ValueFamily; op: ValueOperator; filter: Filter }
  | { kind: "activity"; family: FieldFamilyName; key: string; field: ActivityFamily; op: ActivityOperator; filter: Filter }
  | { kind: "segment"; family: "segment"; key: string; member: boolean; filter: Filter };

const defOf = <T>(defs: Record<string, T>, op: FilterOperator): T | undefined => (Object.hasOwn(defs, op) ? defs[op] : undefined);

/** Resolves a filter at `path` (`groups.0.filters.1`), or throws a FilterError naming it. */
export function resolveLeaf(filter: Filter, dialect: FilterDialect, path: string, topics?: TopicDefaults): Leaf {
  const resolved = resolveFilterField(filter.field, dialect);
  if (!resolved) throw new FilterError(`${path}.field`, `unknown filter field "${filter.field}"`);
  const { family, key } = resolved;
  // as with segments, a topic that is not the project's is named at its field rather than read as false
  if (family === "topic" && topics !== undefined && !topics.has(key)) throw new FilterError(`${path}.field`, `unknown topic "${key}"`);
  const spec: FieldFamily = FIELD_FAMILIES[family];
  if (!spec.operators.includes(filter.operator)) {
    throw new FilterError(`${path}.operator`, `operator ${filter.operator} does not apply to ${filter.field}`);
  }
  if (spec.kind === "membership") return { kind: "segment", family: "segment", key, member: filter.operator === "memberOfSegment", filter };
  const activity = ACTIVITY_FAMILIES[family];
  const activityOp = defOf<ActivityOperator>(ACTIVITY_OPERATOR_DEFS, filter.operator);
  if (activity && activityOp) return { kind: "activity", family, key, field: activity, op: activityOp, filter };
  const value = VALUE_FAMILIES[family];
  const valueOp = defOf<ValueOperator>(VALUE_OPERATOR_DEFS, filter.operator);
  if (value && valueOp) return { kind: "value", family, key, field: value, op: valueOp, filter };
  throw new FilterError(`${path}.operator`, `operator ${filter.operator} does not apply to ${filter.field}`);
}
