import type { ConditionConfig, Filter, FilterExpression } from "@mailroom/contracts";

/** A CONDITION step's short form `{field, operator, value}` is the expression of that one filter. */
export function normalizeExpression(expr: FilterExpression | ConditionConfig): FilterExpression {
  if ("groups" in expr) return expr;
  const { logic: _logic, ...filter } = expr as Filter & { logic?: null };
  return { logic: "AND", groups: [{ filters: [filter] }] };
}

/** How one evaluator combines results; parts are thunks so that memory can stop early. */
export interface Algebra<T> {
  leaf(filter: Filter, path: string): T;
  and(parts: ReadonlyArray<() => T>): T;
  or(parts: ReadonlyArray<() => T>): T;
}

/**
 * The one walk of the language: a group's filters and its nested `conditions` are ANDed, `logic`
 * joins the groups. An empty group is true; no groups is true under AND and false under OR.
 * Paths name a filter as in zod issues: `groups.0.conditions.groups.1.filters.2`.
 */
export function foldExpression<T>(expr: FilterExpression, alg: Algebra<T>, path = ""): T {
  const groups = expr.groups.map((group, i) => () => {
    const at = `${path}groups.${i}`;
    const parts = group.filters.map((f, j) => () => alg.leaf(f, `${at}.filters.${j}`));
    const nested = group.conditions;
    if (nested) parts.push(() => foldExpression(nested, alg, `${at}.conditions.`));
    return alg.and(parts);
  });
  return expr.logic === "OR" ? alg.or(groups) : alg.and(groups);
}

/** Every filter of the expression with its path, nested conditions included (not other segments). */
export function filtersOf(expr: FilterExpression): Array<{ filter: Filter; path: string }> {
  const out: Array<{ filter: Filter; path: string }> = [];
  foldExpression<void>(expr, {
    leaf: (filter, path) => void out.push({ filter, path }),
    and: (parts) => {
      for (const p of parts) p();
    },
    or: (parts) => {
      for (const p of parts) p();
    },
  });
  return out;
}
