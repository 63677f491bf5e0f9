import {
  FIELD_FAMILIES,
  type FieldFamilyName,
  type FieldKind,
  type Filter,
  type FilterDialect,
  type FilterExpression,
  type FilterGroup,
  type FilterOperator,
  NO_VALUE_OPERATORS,
  TIME_OPERATORS,
  type TimeUnit,
  resolveFilterField,
} from "@mailroom/contracts";

/**
 * The builder's form state and its conversion to and from a FilterExpression (decisions.md §8).
 * Pure, so the round trip expression → form → expression is unit-tested for every operator. The
 * state mirrors the expression's shape (groups[].filters[], groups[].conditions), so a path such as
 * `groups.0.conditions.groups.1.filters.2.value` names the same place in both: the schema's issues
 * and the API's `details[].path` land on a filter's input without any translation table.
 */

/** How a value's text is read: the type the API receives. `json` holds a mixed list (one JSON text per item). */
export type ValueType = "string" | "number" | "boolean" | "json";

export interface FilterRowState {
  /** React key only; not part of the expression. */
  id: string;
  family: FieldFamilyName;
  /** The family's key: `createdAt`, an activity (`opened`), a data path, an event name, a segment id. */
  key: string;
  operator: FilterOperator;
  valueType: ValueType;
  /** A single value as typed (`true`/`false` for booleans, an ISO time for dates). */
  text: string;
  /** The items of `in` / `notIn`, as typed. */
  list: string[];
  /** Kept whatever the operator, so switching operators back and forth loses nothing. */
  unit: TimeUnit;
}
export interface GroupState {
  id: string;
  filters: FilterRowState[];
  conditions: ExpressionState | null;
}
export interface ExpressionState {
  id: string;
  logic: FilterExpression["logic"];
  groups: GroupState[];
}

let counter = 0;
const nextId = () => `fb${++counter}`;

/** The value type a family's values must have, or null when the person chooses (`data.*`). */
export function fixedValueType(kind: FieldKind): ValueType | null {
  if (kind === "boolean") return "boolean";
  if (kind === "string" || kind === "date") return "string";
  return kind === "any" ? null : "number";
}

export const isTimeOperator = (op: FilterOperator) => TIME_OPERATORS.includes(op);
export const isListOperator = (op: FilterOperator) => op === "in" || op === "notIn";
export const takesValue = (op: FilterOperator) => !NO_VALUE_OPERATORS.includes(op);

/** The key a family starts with when picked: the first whole name or activity, else empty (typed or chosen). */
export function defaultKey(family: FieldFamilyName): string {
  if (family === "timestamp") return "createdAt";
  if (family === "emailActivity") return "opened";
  if (family === "email" || family === "subscribed") return family;
  return "";
}

/** The field name a row stands for (`email`, `createdAt`, `email.opened`, `data.plan`, `segment.<id>`). */
export function fieldName(row: Pick<FilterRowState, "family" | "key">): string {
  switch (row.family) {
    case "email":
    case "subscribed":
      return row.family;
    case "timestamp":
      return row.key;
    case "emailActivity":
      return `email.${row.key}`;
    default:
      return `${FIELD_FAMILIES[row.family].prefix}${row.key}`;
  }
}

export function blankFilter(family: FieldFamilyName = "email"): FilterRowState {
  const spec = FIELD_FAMILIES[family];
  const operator = spec.operators[0] as FilterOperator;
  return {
    id: nextId(),
    family,
    key: defaultKey(family),
    operator,
    valueType: fixedValueType(spec.kind) ?? "string",
    text: spec.kind === "boolean" ? "true" : "",
    list: [],
    unit: "days",
  };
}

/** A row moved to another family: its operator and value type follow the family; the rest is kept when it still fits. */
export function withFamily(row: FilterRowState, family: FieldFamilyName, key = defaultKey(family)): FilterRowState {
  if (row.family === family) return { ...row, key };
  const spec = FIELD_FAMILIES[family];
  const operators: readonly FilterOperator[] = spec.operators;
  const operator = operators.includes(row.operator) ? row.operator : (operators[0] as FilterOperator);
  const fixed = fixedValueType(spec.kind);
  const valueType = fixed ?? (row.valueType === "json" ? "string" : row.valueType);
  // A boolean's text is "true"/"false"; it carries over only to a value that can be a boolean.
  const wasBoolean = row.valueType === "boolean";
  const text = valueType === "boolean" ? (row.text === "false" ? "false" : "true") : wasBoolean ? "" : row.text;
  return { ...row, family, key, operator, valueType, text };
}

const STRING_OPERATORS: readonly FilterOperator[] = ["contains", "notContains", "startsWith", "endsWith"];
const ORDER_OPERATORS: readonly FilterOperator[] = ["greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual"];

/** The value types a person may choose for this family and operator (one: nothing to choose). */
export function valueTypesFor(family: FieldFamilyName, operator: FilterOperator): ValueType[] {
  if (!takesValue(operator) || isTimeOperator(operator)) return ["number"];
  const fixed = fixedValueType(FIELD_FAMILIES[family].kind);
  if (fixed) return [fixed];
  if (STRING_OPERATORS.includes(operator)) return ["string"];
  if (ORDER_OPERATORS.includes(operator)) return ["number", "string"];
  return isListOperator(operator) ? ["string", "number", "boolean", "json"] : ["string", "number", "boolean"];
}

/** A row given another operator: its value type moves to one the operator accepts. */
export function withOperator(row: FilterRowState, operator: FilterOperator): FilterRowState {
  const next = { ...row, operator };
  if (!takesValue(operator) || isTimeOperator(operator)) return next;
  const types = valueTypesFor(row.family, operator);
  if (types.includes(row.valueType)) return next;
  const valueType = types[0]!;
  return { ...next, valueType, text: valueType === "boolean" ? "true" : row.valueType === "boolean" ? "" : row.text };
}

export const blankGroup = (): GroupState => ({ id: nextId(), filters: [blankFilter()], conditions: null });
export const blankExpression = (logic: FilterExpression["logic"] = "OR"): ExpressionState => ({ id: nextId(), logic, groups: [blankGroup()] });

// ---- expression → form ----

function scalarType(v: unknown): ValueType | null {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "boolean";
  return null;
}

function valueState(value: Filter["value"], kind: FieldKind): Pick<FilterRowState, "valueType" | "text" | "list"> {
  const fallback = fixedValueType(kind) ?? "string";
  if (value === undefined) return { valueType: fallback, text: kind === "boolean" ? "true" : "", list: [] };
  if (Array.isArray(value)) {
    const types = new Set(value.map(scalarType));
    const [only] = [...types];
    if (types.size === 1 && only) return { valueType: only, text: "", list: value.map(String) };
    return { valueType: "json", text: "", list: value.map((v) => JSON.stringify(v)) };
  }
  return { valueType: scalarType(value) ?? fallback, text: String(value), list: [] };
}

export function filterToRow(filter: Filter, dialect: FilterDialect = "audience"): FilterRowState {
  // An unknown field (never from the API, which validates) is shown as a data path so it can be fixed.
  const resolved = resolveFilterField(filter.field, dialect) ?? { family: "data" as const, key: filter.field.replace(/^data\./, "") };
  const kind = FIELD_FAMILIES[resolved.family].kind;
  return {
    id: nextId(),
    family: resolved.family,
    key: resolved.family === "email" || resolved.family === "subscribed" ? resolved.family : resolved.key,
    operator: filter.operator,
    ...valueState(filter.value, kind),
    unit: filter.unit ?? "days",
  };
}

export function expressionToState(expr: FilterExpression, dialect: FilterDialect = "audience"): ExpressionState {
  return {
    id: nextId(),
    logic: expr.logic,
    groups: expr.groups.map((g) => ({
      id: nextId(),
      filters: g.filters.map((f) => filterToRow(f, dialect)),
      conditions: g.conditions ? expressionToState(g.conditions, dialect) : null,
    })),
  };
}

// ---- form → expression ----

/** Problems found while reading the form's text (a number that is not one), by expression path. */
export type FieldErrors = Record<string, string>;

function readScalar(text: string, type: ValueType): { value?: string | number | boolean; error?: string } {
  if (type === "string") return { value: text };
  if (type === "boolean") return text === "true" || text === "false" ? { value: text === "true" } : { error: "Choose true or false" };
  if (type === "number") {
    const n = Number(text);
    return text.trim() !== "" && Number.isFinite(n) ? { value: n } : { error: "Enter a number" };
  }
  try {
    const v: unknown = JSON.parse(text);
    if (scalarType(v)) return { value: v as string | number | boolean };
  } catch {
    // reported below
  }
  return { error: `"${text}" is not a JSON string, number or boolean` };
}

const MISSING_KEY: Partial<Record<FieldFamilyName, string>> = {
  data: "Enter a data key",
  event: "Enter an event name",
  eventData: "Enter a key of the event's data",
  segment: "Choose a segment",
  topic: "Choose a topic",
};

export function rowToFilter(row: FilterRowState, path: string, errors: FieldErrors): Filter {
  const filter: Filter = { field: fieldName(row), operator: row.operator };
  const missing = row.key.trim() === "" ? MISSING_KEY[row.family] : undefined;
  if (missing) errors[`${path}.field`] = missing;
  if (!takesValue(row.operator)) return filter;
  if (isTimeOperator(row.operator)) {
    const read = readScalar(row.text, "number");
    if (read.error) errors[`${path}.value`] = read.error;
    else filter.value = read.value;
    filter.unit = row.unit;
    return filter;
  }
  if (isListOperator(row.operator)) {
    if (row.list.length === 0) {
      errors[`${path}.value`] = "Add at least one value";
      return filter;
    }
    const items = row.list.map((t) => readScalar(t, row.valueType));
    const bad = items.find((i) => i.error);
    if (bad) errors[`${path}.value`] = bad.error!;
    else filter.value = items.map((i) => i.value!);
    return filter;
  }
  const read = readScalar(row.text, row.valueType);
  if (read.error) errors[`${path}.value`] = read.error;
  else filter.value = read.value;
  return filter;
}

/**
 * The expression the form stands for, and what could not be read. A filter whose value did not
 * read is sent without it, so the schema still checks the rest (and adds "needs a value" where the
 * reading problem is the clearer message: the caller prefers `errors`).
 */
export function stateToExpression(state: ExpressionState, errors: FieldErrors = {}, path = ""): FilterExpression {
  const at = (p: string) => (path ? `${path}.${p}` : p);
  return {
    logic: state.logic,
    groups: state.groups.map((g, gi): FilterGroup => {
      const group: FilterGroup = { filters: g.filters.map((f, fi) => rowToFilter(f, at(`groups.${gi}.filters.${fi}`), errors)) };
      if (g.conditions) group.conditions = stateToExpression(g.conditions, errors, at(`groups.${gi}.conditions`));
      return group;
    }),
  };
}
