/** A timestamp in the reader's locale and time zone, to the minute ("Nov 25, 2026, 23:17"). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A JSON value as one line of text: strings as they are, everything else as JSON. */
export function formatValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** What a person typed in a value field: JSON when it parses (`42`, `true`, `["a"]`), else the text itself. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `part / whole` as a percentage with one decimal, or "—" when nothing was sent. */
export function rate(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : "—";
}
