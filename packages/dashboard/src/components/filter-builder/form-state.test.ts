import {
  DIALECT_FAMILIES,
  FIELD_FAMILIES,
  FILTER_OPERATORS,
  type FieldFamilyName,
  type Filter,
  type FilterDialect,
  type FilterExpression,
  type FilterOperator,
  FilterExpression as FilterExpressionSchema,
  WorkflowFilterExpression,
} from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { blankFilter, expressionToState, filterToRow, stateToExpression, valueTypesFor, withFamily, withOperator } from "./form-state";
import { checkState, expressionErrorsFrom, messagesAt, placeOf } from "./validate";

const FIELD: Record<FieldFamilyName, string> = {
  email: "email",
  subscribed: "subscribed",
  timestamp: "createdAt",
  emailActivity: "email.clicked",
  data: "data.company.size",
  event: "event.signup",
  eventData: "event.plan",
  segment: "segment.seg_123",
  topic: "topic.top_123",
};

/** A valid value (and unit) for each operator on a field of this family; several where the form reads them differently. */
function samples(family: FieldFamilyName, operator: FilterOperator): Omit<Filter, "field" | "operator">[] {
  const kind = FIELD_FAMILIES[family].kind;
  if (["exists", "notExists", "triggered", "notTriggered", "memberOfSegment", "notMemberOfSegment"].includes(operator)) return [{}];
  if (["within", "olderThan", "triggeredWithin", "triggeredOlderThan", "notTriggeredWithin"].includes(operator)) {
    return [{ value: 14, unit: "days" }, { value: 1.5, unit: "hours" }, { value: 90, unit: "minutes" }];
  }
  if (operator === "in" || operator === "notIn") {
    if (kind === "string") return [{ value: ["a@example.com", "B@Example.com"] }];
    return [{ value: ["pro", "team"] }, { value: [1, 2.5, -3] }, { value: [true] }, { value: ["1", 1, true, "true", ""] }];
  }
  if (kind === "boolean") return [{ value: true }, { value: false }];
  if (kind === "date") return [{ value: "2026-01-02T03:04:05.678Z" }, { value: "2026-01-02T03:04:05+02:00" }];
  if (kind === "string") return [{ value: "ada@example.com" }, { value: "" }];
  if (["contains", "notContains", "startsWith", "endsWith"].includes(operator)) return [{ value: "pro" }, { value: "42" }, { value: " spaced " }];
  if (["greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual"].includes(operator)) return [{ value: 10 }, { value: 0.1 }, { value: "2026-01-01" }];
  return [{ value: "pro" }, { value: "42" }, { value: 42 }, { value: -0.5 }, { value: true }, { value: "true" }];
}

function cases(dialect: FilterDialect): Filter[] {
  return DIALECT_FAMILIES[dialect].flatMap((family) =>
    FIELD_FAMILIES[family].operators.flatMap((operator) => samples(family, operator).map((rest) => ({ field: FIELD[family], operator, ...rest }))),
  );
}

const one = (filter: Filter): FilterExpression => ({ logic: "AND", groups: [{ filters: [filter] }] });
const roundTrip = (expr: FilterExpression, dialect: FilterDialect = "audience") => stateToExpression(expressionToState(expr, dialect));

describe("the filter builder's form state", () => {
  it("covers every operator of the language", () => {
    const used = new Set([...cases("audience"), ...cases("workflow")].map((f) => f.operator));
    expect([...used].sort()).toEqual([...FILTER_OPERATORS].sort());
  });

  for (const dialect of ["audience", "workflow"] as const) {
    const schema = dialect === "audience" ? FilterExpressionSchema : WorkflowFilterExpression;
    for (const filter of cases(dialect)) {
      it(`keeps ${dialect} ${filter.field} ${filter.operator} ${JSON.stringify(filter.value)} unchanged (expression → form → expression)`, () => {
        const expr = one(filter);
        expect(schema.safeParse(expr).success).toBe(true); // the sample is a real one
        expect(roundTrip(expr, dialect)).toEqual(expr);
        expect(checkState(expressionToState(expr, dialect), dialect)).toMatchObject({ valid: true, errors: {} });
      });
    }
  }

  it("keeps groups, their logic, empty groups and conditions nested to the deepest level", () => {
    let expr: FilterExpression = { logic: "OR", groups: [{ filters: [{ field: "event.signup", operator: "triggered" }] }] };
    for (let level = 0; level < 4; level++) {
      expr = {
        logic: level % 2 ? "OR" : "AND",
        groups: [{ filters: [{ field: "subscribed", operator: "equals", value: true }], conditions: expr }, { filters: [] }],
      };
    }
    expect(FilterExpressionSchema.safeParse(expr).success).toBe(true);
    expect(roundTrip(expr)).toEqual(expr);
    expect(roundTrip({ logic: "AND", groups: [] })).toEqual({ logic: "AND", groups: [] });
  });

  it("keeps the example of decisions.md §8", () => {
    const expr: FilterExpression = {
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
    expect(roundTrip(expr)).toEqual(expr);
  });

  it("reads the workflow spellings contact.email and contact.subscribed as email and subscribed", () => {
    expect(roundTrip(one({ field: "contact.email", operator: "equals", value: "a@b.c" }), "workflow")).toEqual(one({ field: "email", operator: "equals", value: "a@b.c" }));
  });

  it("moves a row to another family with an operator and a value type that fit it", () => {
    const row = { ...blankFilter("data"), key: "age", operator: "greaterThan" as const, valueType: "number" as const, text: "3" };
    expect(withFamily(row, "timestamp")).toMatchObject({ family: "timestamp", key: "createdAt", operator: "greaterThan", valueType: "string" });
    expect(withFamily(row, "event")).toMatchObject({ family: "event", key: "", operator: "triggered" });
    expect(withFamily(row, "subscribed")).toMatchObject({ operator: "equals", valueType: "boolean", text: "true" });
    expect(withFamily(blankFilter("subscribed"), "data")).toMatchObject({ valueType: "boolean", text: "true" });
  });
});

describe("the filter builder's value types", () => {
  it("offers only the types an operator accepts, and moves a row's type to one of them", () => {
    expect(valueTypesFor("data", "contains")).toEqual(["string"]);
    expect(valueTypesFor("data", "greaterThan")).toEqual(["number", "string"]);
    expect(valueTypesFor("data", "in")).toContain("json");
    expect(valueTypesFor("email", "in")).toEqual(["string"]);
    expect(valueTypesFor("subscribed", "equals")).toEqual(["boolean"]);
    const flag = filterToRow({ field: "data.vip", operator: "equals", value: true });
    expect(withOperator(flag, "greaterThan")).toMatchObject({ operator: "greaterThan", valueType: "number", text: "" });
    expect(withOperator(flag, "exists")).toMatchObject({ operator: "exists", valueType: "boolean" });
    // switching away and back loses nothing: the unit and the text are kept
    const recent = filterToRow({ field: "data.seen", operator: "within", value: 3, unit: "hours" });
    const back = withOperator(withOperator(recent, "exists"), "within");
    expect(stateToExpression({ id: "e", logic: "AND", groups: [{ id: "g", filters: [back], conditions: null }] })).toEqual(
      one({ field: "data.seen", operator: "within", value: 3, unit: "hours" }),
    );
  });
});

describe("the filter builder's messages", () => {
  const state = (filters: Filter[]) => expressionToState(one(filters[0]!));

  it("says a number is not one, and that a list needs a value, at the value", () => {
    const row = { ...filterToRow({ field: "data.age", operator: "greaterThan", value: 3 }), text: "abc" };
    const checked = checkState({ id: "x", logic: "AND", groups: [{ id: "g", filters: [row], conditions: null }] });
    expect(checked.valid).toBe(false);
    expect(checked.errors["groups.0.filters.0.value"]).toBe("Enter a number");

    const list = { ...filterToRow({ field: "data.plan", operator: "in", value: ["a"] }), list: [] };
    expect(checkState({ id: "x", logic: "AND", groups: [{ id: "g", filters: [list], conditions: null }] }).errors).toEqual({
      "groups.0.filters.0.value": "Add at least one value",
    });
  });

  it("shows the schema's message at the input it concerns", () => {
    const s = state([{ field: "email.opened", operator: "triggeredWithin", value: 0, unit: "days" }]);
    expect(checkState(s).errors).toEqual({ "groups.0.filters.0.value": "operator triggeredWithin needs a positive number of units" });
    const noKey = state([{ field: "data.plan", operator: "exists" }]);
    noKey.groups[0]!.filters[0]!.key = "";
    expect(Object.keys(checkState(noKey).errors)).toEqual(["groups.0.filters.0.field"]);
    const date = state([{ field: "createdAt", operator: "greaterThan", value: "2026-01-01T00:00:00Z" }]);
    date.groups[0]!.filters[0]!.text = "yesterday";
    expect(checkState(date).errors["groups.0.filters.0.value"]).toMatch(/ISO 8601/);
  });

  it("places the API's details under filters at the same inputs, and leaves the rest", () => {
    const { errors, rest } = expressionErrorsFrom([
      { path: "filters.groups.1.conditions.groups.0.filters.2.field", message: "unknown segment" },
      { path: "name", message: "too long" },
    ]);
    expect(errors).toEqual({ "groups.1.conditions.groups.0.filters.2.field": "unknown segment" });
    expect(rest).toEqual([{ path: "name", message: "too long" }]);
    expect(placeOf("groups.1.conditions.groups.0.filters.2.field")).toBe("groups.1.conditions.groups.0.filters.2.field");
    expect(placeOf("groups.1.conditions.groups.0.conditions")).toBe("groups.1.conditions.groups.0");
    expect(placeOf("groups.3.filters")).toBe("groups.3");
    expect(placeOf("groups")).toBe("");
    expect(messagesAt({ "groups.3.filters": "too many", "groups.3": "bad" }, "groups.3")).toBe("too many; bad");
  });
});
