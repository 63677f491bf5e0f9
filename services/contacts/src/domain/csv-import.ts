import { EmailAddress } from "@mailroom/contracts";
import { DATA_LIMITS, RESERVED_KEYS } from "./data-rules.js";

/**
 * How a CSV import reads its file (decisions.md §14): a header row; `email` required, `subscribed`
 * optional (both matched case-insensitively), every other column goes to `data` under its header
 * as written. CSV has no types, so data values are stored as the strings they are; an empty cell
 * is the data rules' `""` (skipped: it overwrites nothing).
 */
export interface ImportColumns {
  email: number;
  subscribed: number | null;
  data: Array<{ index: number; key: string }>;
  /** Fields every row must have. */
  count: number;
}

/** A row as staged: its address, its `subscribed` (null: not given) and its non-empty data cells. */
export interface StagedRow {
  email: string;
  subscribed: boolean | null;
  data: Record<string, string>;
}

/** The columns of a header, or why the file cannot be imported at all. */
export function importColumns(header: string[]): ImportColumns | { error: string } {
  const names = header.map((h) => h.trim());
  if (names.some((n) => UNSTORABLE.test(n))) return { error: "the header contains a NUL character or an unpaired surrogate" };
  const seen = new Set<string>();
  let email = -1;
  let subscribed: number | null = null;
  const data: ImportColumns["data"] = [];
  for (const [index, name] of names.entries()) {
    if (name === "") return { error: `column ${index + 1} of the header has no name` };
    const folded = name.toLowerCase();
    const key = folded === "email" || folded === "subscribed" ? folded : name;
    if (seen.has(key)) return { error: `the header names column "${name}" twice` };
    seen.add(key);
    if (key === "email") email = index;
    else if (key === "subscribed") subscribed = index;
    // data rule 5: reserved keys are removed, silently, as on POST /contacts
    else if (!RESERVED_KEYS.has(key)) data.push({ index, key });
  }
  if (email < 0) return { error: "the header has no email column" };
  if (data.length > DATA_LIMITS.maxKeys) return { error: `the header has more than ${DATA_LIMITS.maxKeys} data columns` };
  return { email, subscribed, data, count: names.length };
}

/** U+0000 and unpaired surrogates: PostgreSQL stores neither (text refuses NUL, jsonb both). */
const UNSTORABLE = /\u0000|\p{Surrogate}/u;

/** What a `subscribed` cell may say, lowercased and trimmed. */
export const SUBSCRIBED_WORDS = { true: ["true", "yes", "y", "1"], false: ["false", "no", "n", "0"] } as const;
const TRUE = new Set<string>(SUBSCRIBED_WORDS.true);
const FALSE = new Set<string>(SUBSCRIBED_WORDS.false);

/** `subscribed` as a spreadsheet writes it; "" is not given. */
export function parseSubscribed(cell: string): boolean | null | undefined {
  const v = cell.trim().toLowerCase();
  if (v === "") return null;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  return undefined;
}

/** One record of the file as it will be staged, or what is wrong with it. */
export function stageRow(fields: string[], columns: ImportColumns): StagedRow | { error: string } {
  if (fields.length !== columns.count) return { error: `the row has ${fields.length} fields where the header has ${columns.count}` };
  if (fields.some((f) => UNSTORABLE.test(f))) return { error: "the row contains a NUL character or an unpaired surrogate" };
  const email = EmailAddress.safeParse(fields[columns.email]);
  if (!email.success) return { error: `email: must be a valid email address` };
  const subscribed = columns.subscribed === null ? null : parseSubscribed(fields[columns.subscribed]!);
  if (subscribed === undefined) return { error: "subscribed: must be true or false (or yes/no, 1/0, empty)" };
  const data: Record<string, string> = {};
  let bytes = 0;
  for (const { index, key } of columns.data) {
    const value = fields[index]!;
    if (value === "") continue;
    data[key] = value;
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value) + 6;
  }
  if (bytes > DATA_LIMITS.maxBytes) return { error: `data: larger than ${DATA_LIMITS.maxBytes} bytes serialized` };
  return { email: email.data, subscribed, data };
}
