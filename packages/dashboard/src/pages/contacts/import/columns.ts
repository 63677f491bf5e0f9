import { UPLOAD_MAX_BYTES } from "@mailroom/contracts";

/** What the import does with a column (decisions.md §14): the address, the subscription, or a `data` key. */
export type ColumnRole = { kind: "email" } | { kind: "subscribed" } | { kind: "data"; key: string };

export interface ColumnPlan {
  columns: Array<{ name: string; role: ColumnRole }>;
  /** Why the import would fail at row 1, said before anything is uploaded; null when it can go. */
  problem: string | null;
}

/**
 * The plan for a header row, read as the contacts service reads it (services/contacts
 * src/domain/csv-import.ts): names trimmed, `email` and `subscribed` matched case-insensitively,
 * every other column a data key as written. The header problems it refuses are refused here first,
 * so a wrong file costs no upload. (Reserved keys, which the service drops silently, are shown as
 * data: the service's list is not in the contracts.)
 */
export function planColumns(header: readonly string[]): ColumnPlan {
  const names = header.map((h, i) => (i === 0 ? h.replace(/^\uFEFF/, "") : h).trim());
  const seen = new Set<string>();
  const columns: ColumnPlan["columns"] = [];
  let problem: string | null = null;
  for (const [index, name] of names.entries()) {
    const folded = name.toLowerCase();
    const role: ColumnRole = folded === "email" || folded === "subscribed" ? { kind: folded } : { kind: "data", key: name };
    const key = role.kind === "data" ? role.key : role.kind;
    if (name === "") problem ??= `Column ${index + 1} of the header has no name.`;
    else if (seen.has(key)) problem ??= `The header names the column “${name}” twice.`;
    seen.add(key);
    columns.push({ name, role });
  }
  if (!seen.has("email")) problem = "The file has no email column: its first row must be a header naming one column “email”.";
  return { columns, problem };
}

/** Why a picked file cannot be imported at all, before it is even read. */
export function fileProblem(file: { name: string; size: number }): string | null {
  if (file.size === 0) return `${file.name} is empty.`;
  if (file.size > UPLOAD_MAX_BYTES) return `${file.name} is larger than the ${UPLOAD_MAX_BYTES / 1024 ** 3} GB an import takes; split it into smaller files.`;
  return null;
}
