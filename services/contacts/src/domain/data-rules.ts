import { isDeepStrictEqual } from "node:util";
import { AppError, type ContactData, type ContactDataInput, type JsonValue, type UpsertEntryPoint } from "@mailroom/contracts";

export type EntryPoint = UpsertEntryPoint;

/** Keys that name what Mailroom itself puts into templates; callers can never store them (decisions §1). */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  "id",
  "mailroom_id",
  "mailroom_email",
  "email",
  "unsubscribeUrl",
  "subscribeUrl",
  "manageUrl",
]);

/**
 * Bounds on `data`, for one call and for what a contact stores. They keep one row small enough to
 * page through millions (the JSONB is read with every contact) and refuse a pathological body
 * before it reaches the database. `data` itself is depth 1.
 */
export const DATA_LIMITS = { maxKeys: 100, maxDepth: 5, maxBytes: 64 * 1024 } as const;

export interface DataOutcome {
  /** The contact's data after this call. */
  stored: ContactData;
  /** Keys whose stored value was added, replaced or deleted. */
  changedKeys: string[];
  /** This call's values that are stored (or, on send, used for this send): the tracked event's record. */
  given: Record<string, JsonValue>;
  /** This call's one-shot values: used once (template variables, the published event), never stored. */
  oneShot: Record<string, JsonValue>;
  /** Template variables of a send or track: stored data, then this call's non-stored values on top. */
  templateData: Record<string, JsonValue>;
}

type Action =
  | { kind: "skip" }
  | { kind: "delete" }
  | { kind: "store"; value: JsonValue }
  | { kind: "once"; value: JsonValue };

const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `{value, persistent}` and nothing else: the wrapper form of a value. */
function wrapper(v: JsonValue): { value: JsonValue; persistent: boolean } | null {
  if (!isObject(v) || typeof v.persistent !== "boolean" || !("value" in v)) return null;
  if (Object.keys(v).length !== 2) return null;
  return { value: v.value as JsonValue, persistent: v.persistent };
}

/** The five rules of the spec for one value (reserved keys are removed before this). */
function classify(value: JsonValue, entry: EntryPoint): Action {
  if (value === null) return { kind: "delete" };
  if (value === "") return { kind: "skip" };
  const w = wrapper(value);
  if (w && !w.persistent) return entry === "api" ? { kind: "skip" } : { kind: "once", value: w.value };
  // `{value, persistent: true}` is the explicit form of a plain value: the rules apply to `value`.
  if (w) return wrapper(w.value) ? { kind: "skip" } : classify(w.value, entry);
  if (typeof value !== "object") return { kind: "store", value };
  // Objects and arrays: stored on track (spec rule 4) and through the management API; on send
  // only primitives are stored, so a structured value is a variable of that one email.
  return entry === "send" ? { kind: "once", value } : { kind: "store", value };
}

function depthExceeds(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (max <= 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((c) => depthExceeds(c, max - 1));
}

function limitError(message: string): AppError {
  return AppError.validation(message, [{ path: "data", message }], "contact_data_limit");
}

/** Refuses input over DATA_LIMITS (VALIDATION_ERROR, reason `contact_data_limit`). */
export function checkDataLimits(data: ContactDataInput, what = "data"): void {
  if (Object.keys(data).length > DATA_LIMITS.maxKeys) throw limitError(`${what} has more than ${DATA_LIMITS.maxKeys} keys`);
  if (depthExceeds(data, DATA_LIMITS.maxDepth)) throw limitError(`${what} is nested deeper than ${DATA_LIMITS.maxDepth} levels`);
  if (Buffer.byteLength(JSON.stringify(data)) > DATA_LIMITS.maxBytes) {
    throw limitError(`${what} is larger than ${DATA_LIMITS.maxBytes} bytes serialized`);
  }
}

/**
 * The top-level keys a call would store (rule 1 and 4's stored values; not deleted, skipped,
 * one-shot or reserved ones): what the project's data-key limit counts (decisions.md §15). Input
 * over DATA_LIMITS is refused first, as `applyContactData` would, so a refused call registers nothing.
 */
export function storedKeys(input: ContactDataInput | undefined, entry: EntryPoint): string[] {
  if (input) checkDataLimits(input);
  const keys: string[] = [];
  for (const key in input) {
    if (!RESERVED_KEYS.has(key) && classify(input[key]!, entry).kind === "store") keys.push(key);
  }
  return keys;
}

/**
 * The contact data rules (api-spec "Contact data rules"), the one implementation used by /v1/send
 * (through contacts.upsert), /v1/track, POST /contacts and PATCH /contacts/{id}:
 * 1. primitives are stored (on send and track also template variables);
 * 2. `null` deletes the key;
 * 3. `""` is skipped and overwrites nothing;
 * 4. `{value, persistent: false}` is used for this call only (send, track) and never stored; on
 *    track plain objects are stored;
 * 5. reserved keys are silently removed.
 */
export function applyContactData(current: ContactData, input: ContactDataInput | undefined, entry: EntryPoint): DataOutcome {
  const stored: ContactData = { ...current };
  const given: Record<string, JsonValue> = {};
  const oneShot: Record<string, JsonValue> = {};
  const callOnly: Record<string, JsonValue> = {};
  if (input) checkDataLimits(input);
  for (const [key, value] of Object.entries(input ?? {})) {
    if (RESERVED_KEYS.has(key)) continue;
    const action = classify(value, entry);
    if (action.kind === "delete") delete stored[key];
    else if (action.kind === "store") stored[key] = given[key] = action.value;
    else if (action.kind === "once") {
      callOnly[key] = action.value;
      if (wrapper(value)) oneShot[key] = action.value;
      else given[key] = action.value;
    }
  }
  // Stored data is checked too: many small calls must not grow one contact past the limits.
  checkDataLimits(stored, "contact data");
  const keys = new Set([...Object.keys(current), ...Object.keys(stored)]);
  const changedKeys = [...keys].filter((k) => !isDeepStrictEqual(current[k], stored[k]));
  return { stored, changedKeys, given, oneShot, templateData: { ...stored, ...callOnly } };
}
