import type { ContactData, ContactDataInput } from "@mailroom/contracts";
import { formatValue, parseValue } from "../../lib/format";

/** One line of the data editor; `original` is the key it had when loaded (none for a new line). */
export interface DataRow {
  id: string;
  key: string;
  value: string;
  original?: string;
}

export function rowsOf(data: ContactData): DataRow[] {
  return Object.entries(data).map(([key, value]) => ({ id: key, key, value: formatValue(value), original: key }));
}

/**
 * The PATCH `data` that turns `before` into the edited rows: only what changed is sent, so an
 * untouched `"42"` stays a string instead of coming back as the number its text parses to; a removed
 * or renamed key is deleted with `null` (the contact data rules).
 */
export function dataPatch(before: ContactData, rows: readonly DataRow[]): ContactDataInput {
  const patch: ContactDataInput = {};
  const kept = new Set(rows.map((r) => r.key));
  for (const key of Object.keys(before)) if (!kept.has(key)) patch[key] = null;
  for (const row of rows) {
    const unchanged = row.original === row.key && formatValue(before[row.key]) === row.value;
    if (!unchanged) patch[row.key] = parseValue(row.value) as ContactDataInput[string];
  }
  return patch;
}

/** Problems the API would refuse or silently ignore, said at the row before sending. */
export function rowErrors(rows: readonly DataRow[]): Record<string, string> {
  const errors: Record<string, string> = {};
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    const key = row.key.trim();
    if (!key) errors[`rows.${i}.key`] = "A key is required";
    else if (key.length > 200) errors[`rows.${i}.key`] = "At most 200 characters";
    else if (seen.has(key)) errors[`rows.${i}.key`] = "This key is already used above";
    seen.add(key);
    // An empty string is skipped by the API: the key would silently keep its old value.
    if (row.value === "") errors[`rows.${i}.value`] = "A value is required (remove the key to delete it)";
  });
  return errors;
}
