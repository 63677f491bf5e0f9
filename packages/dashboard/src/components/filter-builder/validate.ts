import { type ErrorDetail, type FilterDialect, type FilterExpression, FilterExpression as FilterExpressionSchema, WorkflowFilterExpression } from "@mailroom/contracts";
import { type ExpressionState, type FieldErrors, stateToExpression } from "./form-state";

export interface CheckedExpression {
  expression: FilterExpression;
  /** Messages by expression path (`groups.0.filters.1.value`); empty when the expression is valid. */
  errors: FieldErrors;
  valid: boolean;
}

/**
 * The form read into an expression and checked by the same schema the API uses (the audience or
 * the workflow dialect). A reading problem ("Enter a number") wins over the schema's message for the
 * same input, being the more precise of the two.
 */
export function checkState(state: ExpressionState, dialect: FilterDialect = "audience"): CheckedExpression {
  const errors: FieldErrors = {};
  const expression = stateToExpression(state, errors);
  const schema = dialect === "audience" ? FilterExpressionSchema : WorkflowFilterExpression;
  const parsed = schema.safeParse(expression);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join(".");
      errors[path] ??= issue.message;
    }
  }
  return { expression, errors, valid: Object.keys(errors).length === 0 };
}

/**
 * The API's 400 details that concern the expression sent under `root` (`filters` in a segment's
 * body), by path inside the expression; the rest is left for the caller to show elsewhere.
 */
export function expressionErrorsFrom(details: readonly ErrorDetail[], root = "filters"): { errors: FieldErrors; rest: ErrorDetail[] } {
  const errors: FieldErrors = {};
  const rest: ErrorDetail[] = [];
  for (const d of details) {
    if (d.path === root || d.path.startsWith(`${root}.`)) {
      const path = d.path.slice(root.length + 1);
      errors[path] = errors[path] ? `${errors[path]}; ${d.message}` : d.message;
    } else rest.push(d);
  }
  return { errors, rest };
}

/**
 * Where a message shows: a filter's own inputs (`….filters.N.field|operator|value|unit`), else the
 * nearest group or expression the builder draws (a depth or size limit), else the top.
 */
export function placeOf(path: string): string {
  if (/(^|\.)filters\.\d+\.(field|operator|value|unit)$/.test(path)) return path;
  const parts = path.split(".");
  for (let i = parts.length - 2; i >= 0; i--) {
    if (parts[i] === "groups" && /^\d+$/.test(parts[i + 1]!)) return parts.slice(0, i + 2).join(".");
  }
  return "";
}

/** The messages that show at `place` (see placeOf), joined. */
export function messagesAt(errors: FieldErrors, place: string): string | undefined {
  const found = Object.entries(errors)
    .filter(([path]) => placeOf(path) === place)
    .map(([, m]) => m);
  return found.length ? found.join("; ") : undefined;
}
