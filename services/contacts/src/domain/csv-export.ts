import type { ContactData } from "@mailroom/contracts";

/** The export's fixed columns, before one column per data key (decisions.md §14). */
export const FIXED_COLUMNS = ["email", "subscribed", "createdAt"] as const;

/** A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

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
  return `${names.map(csvField).join(",")}\r\n`;
}

export function exportLine(c: { email: string; subscribed: boolean; created_at: Date; data: ContactData }, keys: readonly string[]): string {
  let line = `${csvField(c.email)},${c.subscribed},${c.created_at.toISOString()}`;
  for (const k of keys) line += `,${csvField(cell(c.data[k]))}`;
  return `${line}\r\n`;
}
