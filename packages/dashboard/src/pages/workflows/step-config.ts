import { NO_VALUE_OPERATORS, STEP_CONFIGS, type StepType, TIME_OPERATORS } from "@mailroom/contracts";
import { formatValue, parseValue } from "../../lib/format";

/**
 * A step's config as its side-panel form holds it, and back. The form edits strings where a person
 * types JSON (webhook headers and body, contact data), a CONDITION's one-filter short form as
 * field/operator/value, and a full filter expression (groups) as the filter builder's value with
 * the builder's verdict on it (`expressionValid`); `toConfig` turns that back into the config the API
 * takes and checks it with the contract's own step schema, so an error lands at its field
 * (`config.url`) before the request, as the API's 400 would. Pure: unit-tested beside.
 */

export type EditableType = Exclude<StepType, "TRIGGER">;
export type Editing = Record<string, unknown>;

/** Keys typed as JSON text, per type. */
const JSON_KEYS: Partial<Record<EditableType, readonly string[]>> = {
  WEBHOOK: ["headers", "body"],
  UPDATE_CONTACT: ["data"],
};
/** Optional text keys left out when empty. */
const OPTIONAL_TEXT: Partial<Record<EditableType, readonly string[]>> = {
  SEND_EMAIL: ["from", "fromName"],
  EXIT: ["reason"],
};

export const DEFAULT_EDITING: Record<EditableType, Editing> = {
  SEND_EMAIL: { templateId: "", from: "", fromName: "", quietFrom: "", quietTo: "" },
  DELAY: { amount: 1, unit: "hours" },
  WAIT_FOR_EVENT: { eventName: "", timeout: 0 },
  CONDITION: { field: "", operator: "equals", value: "", unit: "days" },
  WEBHOOK: { url: "", method: "POST", headers: "", body: "" },
  UPDATE_CONTACT: { data: "{}" },
  EXIT: { reason: "" },
};

const json = (v: unknown) => (v === undefined ? "" : JSON.stringify(v, null, 2));

/** A stored config as the form edits it. */
export function toEditing(type: EditableType, config: Record<string, unknown>): Editing {
  const editing: Editing = { ...DEFAULT_EDITING[type] };
  if (type === "CONDITION") {
    // a full expression (groups) is edited in the filter builder; the one-filter short form by its fields
    if ("logic" in config && config.logic != null) return { expression: config, expressionValid: true };
    return { ...editing, ...config, value: config.value === undefined ? "" : formatValue(config.value), unit: config.unit ?? "days" };
  }
  for (const [k, v] of Object.entries(config)) editing[k] = JSON_KEYS[type]?.includes(k) ? json(v) : v;
  if (type === "SEND_EMAIL") {
    // quiet hours as two time fields; both empty: none
    const { quietHours, ...rest } = editing as Editing & { quietHours?: { from: string; to: string } };
    return { ...rest, quietFrom: quietHours?.from ?? "", quietTo: quietHours?.to ?? "" };
  }
  return editing;
}

/** The config the API takes, or the form's errors by field (`config.<key>`). */
export function toConfig(type: EditableType, editing: Editing): { config: Record<string, unknown> } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  let config: Record<string, unknown> = {};
  if (type === "CONDITION" && editing.expressionValid === false) return { errors: { "config.expression": "Fix the filter's marked inputs" } };
  for (const [k, v] of Object.entries(editing)) {
    if (k === "expressionValid") continue;
    if (JSON_KEYS[type]?.includes(k)) {
      const text = String(v ?? "").trim();
      if (!text) continue;
      try {
        config[k] = JSON.parse(text);
      } catch {
        errors[`config.${k}`] = "Not valid JSON";
      }
    } else if (OPTIONAL_TEXT[type]?.includes(k) && (v === "" || v == null)) {
      continue;
    } else {
      config[k] = v;
    }
  }
  if (type === "CONDITION") config = conditionConfig(config);
  if (type === "SEND_EMAIL") config = quietHoursConfig(config);
  if (Object.keys(errors).length) return { errors };

  const parsed = STEP_CONFIGS[type].safeParse(config);
  if (parsed.success) return { config: parsed.data as Record<string, unknown> };
  for (const issue of parsed.error.issues) {
    // an issue inside a JSON field is shown on that field; one on the config as a whole on its first field
    let key = issue.path.length ? String(issue.path[0]) : Object.keys(editing)[0]!;
    if (key === "quietHours") key = issue.path[1] === "from" ? "quietFrom" : "quietTo";
    const field = key in editing ? `config.${key}` : `config.${Object.keys(editing)[0]}`;
    const where = issue.path.length > 1 && issue.path[0] !== "quietHours" ? `${issue.path.slice(1).join(".")}: ` : "";
    errors[field] ??= `${where}${issue.message}`;
  }
  return { errors };
}

/**
 * The one-filter short form as the full expression the filter builder edits ("Add filters"): the
 * filter as typed so far, whose problems the builder then marks.
 */
export function shortFormToExpression(editing: Editing): Record<string, unknown> {
  return { logic: "AND", groups: [{ filters: [conditionConfig(editing)] }] };
}

/** The short form: `value` parsed as JSON where it can be, dropped or `unit` dropped as the operator needs. */
function conditionConfig(config: Record<string, unknown>): Record<string, unknown> {
  if ("expression" in config) return config.expression as Record<string, unknown>;
  const { field, operator, value, unit } = config as { field: string; operator: string; value: string; unit: string };
  const out: Record<string, unknown> = { field, operator };
  const text = String(value ?? "").trim();
  // an empty box is no value (the schema then says the operator needs one), not the empty string
  if (!NO_VALUE_OPERATORS.includes(operator as never) && text !== "") out.value = TIME_OPERATORS.includes(operator as never) ? Number(text) : parseValue(text);
  if (TIME_OPERATORS.includes(operator as never)) out.unit = unit;
  return out;
}

/** SEND_EMAIL's two quiet-hours fields as `quietHours`; one left empty is sent missing, for the schema to name. */
function quietHoursConfig(config: Record<string, unknown>): Record<string, unknown> {
  const { quietFrom, quietTo, ...rest } = config as Record<string, unknown> & { quietFrom?: string; quietTo?: string };
  if (!quietFrom && !quietTo) return rest;
  return { ...rest, quietHours: { ...(quietFrom ? { from: quietFrom } : {}), ...(quietTo ? { to: quietTo } : {}) } };
}
