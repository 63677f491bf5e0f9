import type { Filter, FilterValue } from "@mailroom/contracts";
import { SqlParams, sqlNot, sqlOr } from "./sql.js";
import { ISO_DATE_TIME_PATTERN, instant, parseIsoDateTime, windowStart } from "./time.js";
import { SQL_FOLD_FROM, SQL_FOLD_TO, compareCodePoints, escapeLike, foldAscii } from "./text.js";

/**
 * Each operator is defined once, with its in-memory and its SQL meaning side by side, over the four
 * kinds of operand a field family yields. Keep the two halves of an entry saying the same thing:
 * the property test in test/agreement.test.ts holds them together.
 */

/** `email` (ASCII case-insensitive), `subscribed`, `createdAt`/`updatedAt`, or a JSON value (data). */
export type OperandType = "email" | "boolean" | "timestamp" | "json";
/** One contact's value of a field; `value` is undefined when the field is missing. */
export interface MemOperand {
  type: OperandType;
  value: unknown;
}
/** The same field as SQL over `c`; a "json" expr is jsonb and NULL when the path is missing. */
export interface SqlOperand {
  type: OperandType;
  expr: string;
}

export interface ValueOperator {
  memory(o: MemOperand, f: Filter, now: number): boolean;
  sql(o: SqlOperand, f: Filter, p: SqlParams, now: number): string;
}

const unsupported = (type: OperandType): never => {
  throw new Error(`operator not defined on ${type} fields`);
};

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const asList = (v: FilterValue | undefined): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const jsonText = (o: SqlOperand) => `(${o.expr} #>> '{}')`;
const sqlFold = (expr: string) => `translate(${expr}, '${SQL_FOLD_FROM}', '${SQL_FOLD_TO}')`;
/** A CASE, not AND, because PostgreSQL does not promise to evaluate AND's operands in order. */
const whenType = (o: SqlOperand, type: string, then: string) =>
  `(CASE WHEN jsonb_typeof(${o.expr}) = '${type}' THEN ${then} ELSE FALSE END)`;

function negate(op: ValueOperator): ValueOperator {
  return {
    memory: (o, f, now) => !op.memory(o, f, now),
    sql: (o, f, p, now) => sqlNot(op.sql(o, f, p, now)),
  };
}

// ---- dates: every date comparison is `t >= cutoff` or `t < cutoff` with a whole-millisecond cutoff

export interface DateTest {
  op: ">=" | "<";
  cut: number;
}

export const holds = (t: number, d: DateTest) => (d.op === ">=" ? t >= d.cut : t < d.cut);

export function dateOf(o: MemOperand): number | null {
  if (o.type === "timestamp") return o.value == null ? null : instant(o.value as Date | string);
  if (o.type === "json") return parseIsoDateTime(o.value);
  return unsupported(o.type);
}

const dateTest = {
  memory(o: MemOperand, test: DateTest): boolean {
    const t = dateOf(o);
    return t !== null && holds(t, test);
  },
  sql(o: SqlOperand, test: DateTest, p: SqlParams): string {
    const cut = p.time(test.cut);
    if (o.type === "timestamp") return `(${o.expr} ${test.op} ${cut})`;
    if (o.type !== "json") return unsupported(o.type);
    const pattern = p.add(ISO_DATE_TIME_PATTERN, "text");
    return `(CASE WHEN jsonb_typeof(${o.expr}) = 'string' AND ${jsonText(o)} ~ ${pattern} THEN ${jsonText(o)}::timestamptz ${test.op} ${cut} ELSE FALSE END)`;
  },
};

// ---- equality

function equalsMemory(o: MemOperand, v: unknown): boolean {
  if (o.type === "email") return typeof o.value === "string" && typeof v === "string" && foldAscii(o.value) === foldAscii(v);
  if (o.type === "boolean") return o.value === v;
  // JSON: same type and value; "5" is not 5, and objects/arrays equal nothing
  if (o.type === "json") return isScalar(o.value) && o.value === v;
  return unsupported(o.type);
}

function equalsSql(o: SqlOperand, v: unknown, p: SqlParams): string {
  if (o.type === "email") {
    if (typeof v !== "string") return "FALSE";
    const folded = p.add(foldAscii(v), "text");
    // lower() = lower() is implied by the ASCII-fold test and can use the (project_id, lower(email)) index
    return `(lower(${o.expr}) = lower(${folded}) AND ${sqlFold(o.expr)} = ${folded})`;
  }
  if (o.type === "boolean") return typeof v === "boolean" ? `(${o.expr} = ${p.add(String(v), "boolean")})` : "FALSE";
  // jsonb equality: numbers numerically, strings byte for byte, never across types
  if (o.type === "json") return `COALESCE(${o.expr} = ${p.add(JSON.stringify(v), "jsonb")}, FALSE)`;
  return unsupported(o.type);
}

const equals: ValueOperator = {
  memory: (o, f) => equalsMemory(o, f.value),
  sql: (o, f, p) => equalsSql(o, f.value, p),
};

const inList: ValueOperator = {
  memory: (o, f) => asList(f.value).some((v) => equalsMemory(o, v)),
  sql(o, f, p) {
    const list = asList(f.value);
    if (o.type === "email") {
      const folded = p.add(JSON.stringify(list.filter((v) => typeof v === "string").map(foldAscii)), "jsonb");
      return `(lower(${o.expr}) IN (SELECT lower(u) FROM jsonb_array_elements_text(${folded}) u) AND ${sqlFold(o.expr)} IN (SELECT jsonb_array_elements_text(${folded})))`;
    }
    if (o.type === "json") {
      const values = p.add(JSON.stringify(list.filter(isScalar)), "jsonb");
      return `(CASE WHEN jsonb_typeof(${o.expr}) IN ('string', 'number', 'boolean') THEN ${values} @> jsonb_build_array(${o.expr}) ELSE FALSE END)`;
    }
    return sqlOr(list.map((v) => equalsSql(o, v, p)));
  },
};

// ---- substrings: on strings; `contains` also tests the elements of a JSON array (tags)

type TextTest = "contains" | "startsWith" | "endsWith";

const textTestJs = (t: TextTest, s: string, v: string) =>
  t === "contains" ? s.includes(v) : t === "startsWith" ? s.startsWith(v) : s.endsWith(v);
const textTestSql = (t: TextTest, s: string, v: string) =>
  t === "contains" ? `strpos(${s}, ${v}) > 0` : t === "startsWith" ? `starts_with(${s}, ${v})` : `right(${s}, length(${v})) = ${v}`;
const likePattern = (t: TextTest, v: string) =>
  `${t === "startsWith" ? "" : "%"}${escapeLike(v)}${t === "endsWith" ? "" : "%"}`;

function textOperator(t: TextTest): ValueOperator {
  return {
    memory(o, f) {
      const v = f.value;
      if (typeof v !== "string") return false;
      if (o.type === "email") return typeof o.value === "string" && textTestJs(t, foldAscii(o.value), foldAscii(v));
      if (o.type !== "json") return unsupported(o.type);
      if (typeof o.value === "string") return textTestJs(t, o.value, v);
      return t === "contains" && Array.isArray(o.value) && o.value.some((e) => e === v);
    },
    sql(o, f, p) {
      const v = f.value;
      if (typeof v !== "string") return "FALSE";
      if (o.type === "email") {
        const folded = foldAscii(v);
        // the LIKE on lower() is the pg_trgm-indexable superset of the exact ASCII-fold test
        const like = `lower(${o.expr}) LIKE lower(${p.add(likePattern(t, folded), "text")})`;
        return `(${like} AND ${textTestSql(t, sqlFold(o.expr), p.add(folded, "text"))})`;
      }
      if (o.type !== "json") return unsupported(o.type);
      const ref = p.add(v, "text");
      const array = t === "contains" ? ` WHEN 'array' THEN ${o.expr} @> jsonb_build_array(${ref})` : "";
      return `(CASE jsonb_typeof(${o.expr}) WHEN 'string' THEN ${textTestSql(t, jsonText(o), ref)}${array} ELSE FALSE END)`;
    },
  };
}

// ---- order: numbers with numbers, ISO date-times chronologically, other strings by code point

type Order = "greaterThan" | "lessThan" | "greaterThanOrEqual" | "lessThanOrEqual";
const ORDER: Record<Order, { sign: ">" | "<" | ">=" | "<="; date: (at: number) => DateTest }> = {
  // dates compare at millisecond precision: t > v is t >= v + 1ms once t is truncated
  greaterThan: { sign: ">", date: (at) => ({ op: ">=", cut: at + 1 }) },
  greaterThanOrEqual: { sign: ">=", date: (at) => ({ op: ">=", cut: at }) },
  lessThan: { sign: "<", date: (at) => ({ op: "<", cut: at }) },
  lessThanOrEqual: { sign: "<=", date: (at) => ({ op: "<", cut: at + 1 }) },
};
const compare = (c: number, sign: string) =>
  sign === ">" ? c > 0 : sign === ">=" ? c >= 0 : sign === "<" ? c < 0 : c <= 0;

/** What the filter's value is compared as: a column's dates, or decided by the value's own type. */
function orderMode(o: { type: OperandType }, v: unknown): { date: number } | "number" | "string" | null {
  if (o.type === "timestamp") {
    const at = typeof v === "string" ? Date.parse(v) : NaN;
    return Number.isFinite(at) ? { date: at } : null;
  }
  if (o.type !== "json") return unsupported(o.type);
  if (typeof v === "number") return "number";
  if (typeof v !== "string") return null;
  const at = parseIsoDateTime(v);
  return at === null ? "string" : { date: at };
}

function orderOperator(order: Order): ValueOperator {
  const { sign, date } = ORDER[order];
  return {
    memory(o, f) {
      const mode = orderMode(o, f.value);
      if (mode === null) return false;
      if (typeof mode === "object") return dateTest.memory(o, date(mode.date));
      if (mode === "number") return typeof o.value === "number" && compare(o.value - (f.value as number), sign);
      return typeof o.value === "string" && compare(compareCodePoints(o.value, f.value as string), sign);
    },
    sql(o, f, p) {
      const mode = orderMode(o, f.value);
      if (mode === null) return "FALSE";
      if (typeof mode === "object") return dateTest.sql(o, date(mode.date), p);
      if (mode === "number") return whenType(o, "number", `${jsonText(o)}::numeric ${sign} ${p.add(String(f.value), "numeric")}`);
      return whenType(o, "string", `${jsonText(o)} COLLATE "C" ${sign} ${p.add(f.value as string, "text")}`);
    },
  };
}

// ---- relative dates

function windowOperator(op: DateTest["op"]): ValueOperator {
  return {
    memory: (o, f, now) => dateTest.memory(o, { op, cut: windowStart(f, now) }),
    sql: (o, f, p, now) => dateTest.sql(o, { op, cut: windowStart(f, now) }, p),
  };
}

// ---- presence: JSON null counts as missing

const exists: ValueOperator = {
  memory: (o) => o.value !== undefined && o.value !== null,
  sql: (o) => (o.type === "json" ? `COALESCE(jsonb_typeof(${o.expr}) <> 'null', FALSE)` : "TRUE"),
};

export const VALUE_OPERATOR_DEFS = {
  equals,
  notEquals: negate(equals),
  contains: textOperator("contains"),
  notContains: negate(textOperator("contains")),
  startsWith: textOperator("startsWith"),
  endsWith: textOperator("endsWith"),
  greaterThan: orderOperator("greaterThan"),
  lessThan: orderOperator("lessThan"),
  greaterThanOrEqual: orderOperator("greaterThanOrEqual"),
  lessThanOrEqual: orderOperator("lessThanOrEqual"),
  exists,
  notExists: negate(exists),
  in: inList,
  notIn: negate(inList),
  within: windowOperator(">="),
  olderThan: windowOperator("<"),
} satisfies Record<string, ValueOperator>;
