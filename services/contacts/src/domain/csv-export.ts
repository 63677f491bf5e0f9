import type { ContactData } from "@mailroom/contracts";

/** The export's fixed columns, before one column per data key (decisions.md §14). */
export const FIXED_COLUMNS = ["email", "subscribed", "createdAt"] as const;

/** A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** What a spreadsheet would read as the start of a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as it is written, sign and exponent included: a cell a spreadsheet reads as a number, not a formula. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Text a spreadsheet will not run (decisions.md §15, OWASP CSV injection): a cell that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, unless it is a plain number
 * (`-12.5` stays a number). Anyone with a public key writes contact data, and the team opens the
 * export in a spreadsheet.
 */
export function neutralised(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** A cell of the export: neutralised, then quoted as needed. */
const field = (value: string) => csvField(neutralised(value));

/** A data value as a cell: text as it is, other values as JSON (a number, true, an object…). */
function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The header line. A data key that is also a fixed column's name (case-insensitively) is written
 * `data.<key>`, so no two columns share a name.
 */
export function exportHeader(keys: readonly string[]): string {
  const fixed = new Set(FIXED_COLUMNS.map((c) => c.toLowerCase()));
  const names = [...FIXED_COLUMNS, ...keys.map((k) => (fixed.has(k.toLowerCase()) ? `data.${k}` : k))];
  return `${names.map(field).join(",")}\r\n`;
}

export function exportLine(c: { email: string; subscribed: boolean; created_at: Date; data: ContactData }, keys: readonly string[]): string {
  let line = `${field(c.email)},${c.subscribed},${c.created_at.toISOString()}`;
  for (const k of keys) line += `,${field(cell(c.data[k]))}`;
  return `${line}\r\n`;
}
