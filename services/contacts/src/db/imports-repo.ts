import type { ContactImport, ImportRowError } from "@mailroom/contracts";
import { isId, iso, json, LeaseLost, traced, type Q, type Row } from "@mailroom/kit";
import type { Writable } from "node:stream";
import { SQL_EMAIL_PATTERN } from "../domain/csv-copy.js";
import { SUBSCRIBED_WORDS, type ImportColumns } from "../domain/csv-import.js";
import { DATA_LIMITS } from "../domain/data-rules.js";
import type { contactImports } from "./schema.js";

export type ImportRow = Row<typeof contactImports>;

/** A runner's write, made only while its token holds the import: LeaseLost when another runner has taken it over. */
async function held(write: PromiseLike<{ length: number }>, id: string): Promise<void> {
  if ((await write).length === 0) throw new LeaseLost("import", id);
}

/** A staged row as an apply batch reads it: `data` is the row's own cells as JSON text. */
export interface StagedRecord {
  row_no: number;
  email: string;
  subscribed: boolean | null;
  data: string;
}

export function toImport(r: ImportRow): ContactImport {
  return {
    id: r.id,
    status: r.status,
    rows: r.rows,
    created: r.created,
    updated: r.updated,
    failed: r.failed,
    errors: r.errors,
    awaitingConfirmation: r.awaiting_confirmation,
  };
}

/**
 * Each import stages its rows in a table of its own: UNLOGGED (no WAL for a table dropped when the
 * import ends) and without indexes while COPY fills it (they are built once, after). Its name is
 * made from the import's id, checked first: it goes into SQL text.
 */
function staging(importId: string): string {
  if (!isId(importId)) throw new Error(`not an id: ${importId}`);
  return `contact_import_${importId.replaceAll("-", "")}`;
}

/** Where a file PostgreSQL parses lands before it is staged (see `createCells`). */
const cellsTable = (importId: string) => `${staging(importId)}_cells`;

/** The column of a file's field (0-based) in the cells table. */
const cell = (index: number) => `c${index + 1}`;

/** A constant of this code as an SQL literal (never a value from a file: those go as parameters). */
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Whether SQL stages a row of cells exactly as `stageRow` would: an address zod takes unchanged, a
 * `subscribed` that is empty or one of its words as written, data under the size bound (counted as
 * stageRow counts it). An empty cell is null here (a file without quotes has no other empty cell).
 * Any other row goes through stageRow itself.
 */
function certainRow(columns: ImportColumns): string {
  const email = cell(columns.email);
  const parts = [`${email} ~ ${literal(SQL_EMAIL_PATTERN)} and length(${email}) <= 254`];
  if (columns.subscribed !== null) {
    const sub = cell(columns.subscribed);
    const words = [...SUBSCRIBED_WORDS.true, ...SUBSCRIBED_WORDS.false].map(literal).join(", ");
    parts.push(`(${sub} is null or (${sub} ~ '^[A-Za-z0-9]{1,5}$' and lower(${sub}) in (${words})))`);
  }
  if (columns.data.length > 0) {
    const bytes = columns.data.map(({ index, key }) => `coalesce(octet_length(${cell(index)}) + ${Buffer.byteLength(key) + 6}, 0)`);
    parts.push(`${bytes.join(" + ")} <= ${DATA_LIMITS.maxBytes}`);
  }
  return `coalesce(${parts.join(" and ")}, false)`;
}

export const importsRepo = traced("ImportsRepo", {
  async create(q: Q, r: { id: string; projectId: string; blob: string; bytes: number; topics: string[]; doubleOptIn: boolean; at: Date }): Promise<ImportRow> {
    const [row] = await q<ImportRow[]>`
      insert into contact_imports (id, project_id, status, phase, blob, bytes, topics, double_opt_in, created_at)
      values (${r.id}, ${r.projectId}, 'RUNNING', 'queued', ${r.blob}, ${r.bytes}, ${r.topics}::text[], ${r.doubleOptIn}, ${iso(r.at)}) returning *`;
    return row!;
  },

  async byId(q: Q, projectId: string, id: string): Promise<ImportRow | null> {
    if (!isId(id)) return null;
    const [row] = await q<ImportRow[]>`select * from contact_imports where id = ${id} and project_id = ${projectId}`;
    return row ?? null;
  },

  /**
   * Takes the oldest RUNNING import nobody holds (never started, or its runner's lease ran out), of a
   * project with no other import held: one import per project at a time, so one tenant's files
   * queue behind each other and not in front of everyone else's. The lease is kit `Lease`'s: `token`
   * holds it, renewed by `renew`; the writes of a run check the token, so a runner that lost it
   * changes nothing.
   */
  async claim(q: Q, token: string, leaseMs: number): Promise<ImportRow | null> {
    const [row] = await q<ImportRow[]>`
      update contact_imports i set heartbeat_at = now(), lease_owner = ${token}
      where i.id = (
        select c.id from contact_imports c
        where c.status = 'RUNNING' and (c.heartbeat_at is null or c.heartbeat_at < now() - ${leaseMs} * interval '1 millisecond')
          and not exists (
            select 1 from contact_imports o where o.project_id = c.project_id and o.status = 'RUNNING' and o.id <> c.id
              and o.heartbeat_at >= now() - ${leaseMs} * interval '1 millisecond')
        order by c.created_at limit 1 for update skip locked)
      returning i.*`;
    return row ?? null;
  },

  /** False once `token` no longer holds the import (another runner took it over, or it finished). */
  async renew(q: Q, id: string, token: string, _leaseMs: number): Promise<boolean> {
    const rows = await q`update contact_imports set heartbeat_at = now() where id = ${id} and lease_owner = ${token} and status = 'RUNNING' returning 1`;
    return rows.length > 0;
  },

  /** Gives an import back at a clean stop: the next claim (this replica's restart, another) takes it at once. */
  async release(q: Q, id: string, token: string): Promise<void> {
    await q`update contact_imports set heartbeat_at = null, lease_owner = null where id = ${id} and lease_owner = ${token} and status = 'RUNNING'`;
  },

  /** (Re)starts loading: what an earlier attempt counted is forgotten with its staged rows. */
  async startLoading(q: Q, id: string, token: string): Promise<void> {
    await held(q`update contact_imports set phase = 'loading', rows = 0, created = 0, updated = 0, failed = 0, errors = '[]', applied_row = 0,
      awaiting_confirmation = 0 where id = ${id} and lease_owner = ${token} returning 1`, id);
  },

  /** Progress while loading: rows read and the bad ones so far. */
  async loadProgress(q: Q, id: string, token: string, p: { rows: number; failed: number; errors: ImportRowError[] }): Promise<void> {
    await held(q`update contact_imports set rows = ${p.rows}, failed = ${p.failed}, errors = ${json(p.errors)}::jsonb
      where id = ${id} and lease_owner = ${token} returning 1`, id);
  },

  async loaded(q: Q, id: string, token: string, p: { rows: number; failed: number; errors: ImportRowError[] }): Promise<void> {
    await held(q`update contact_imports set phase = 'applying', rows = ${p.rows}, failed = ${p.failed}, errors = ${json(p.errors)}::jsonb
      where id = ${id} and lease_owner = ${token} returning 1`, id);
  },

  /** One applied batch, in its transaction (which LeaseLost rolls back): a takeover resumes after `appliedRow`. */
  async applied(
    q: Q,
    id: string,
    token: string,
    p: { appliedRow: number; created: number; updated: number; failed: number; awaitingConfirmation: number; errors: ImportRowError[] },
  ): Promise<void> {
    await held(q`
      update contact_imports set applied_row = ${p.appliedRow}, created = created + ${p.created}, updated = updated + ${p.updated},
        failed = failed + ${p.failed}, awaiting_confirmation = awaiting_confirmation + ${p.awaitingConfirmation},
        errors = ${json(p.errors)}::jsonb
      where id = ${id} and lease_owner = ${token} returning 1`, id);
  },

  async finish(q: Q, id: string, token: string, status: "COMPLETED" | "FAILED", errors?: ImportRowError[]): Promise<void> {
    await held(q`
      update contact_imports set status = ${status}, phase = 'done', finished_at = now(), lease_owner = null,
        errors = coalesce(${errors === undefined ? null : json(errors)}::jsonb, errors)
      where id = ${id} and lease_owner = ${token} returning 1`, id);
  },

  async createStaging(q: Q, id: string): Promise<void> {
    const t = staging(id);
    await q.unsafe(`drop table if exists ${t}`);
    await q.unsafe(`create unlogged table ${t} (row_no integer not null, email_key text not null, email text not null, subscribed boolean, data text not null)`);
  },

  /** COPY into the staging table: text format, one `row_no, email_key, email, subscribed, data` line a row. */
  copyIn(q: Q, id: string): Promise<Writable> {
    return q.unsafe(`copy ${staging(id)} (row_no, email_key, email, subscribed, data) from stdin`).writable();
  },

  /** After the load: what the batches look rows up by (their range, and a later row of the same address). */
  async indexStaging(q: Q, id: string): Promise<void> {
    const t = staging(id);
    await q.unsafe(`create index on ${t} (row_no)`);
    await q.unsafe(`create index on ${t} (email_key, row_no)`);
    await q.unsafe(`analyze ${t}`);
  },

  async dropStaging(q: Q, id: string): Promise<void> {
    await q.unsafe(`drop table if exists ${staging(id)}, ${cellsTable(id)}`);
  },

  /**
   * The table a file PostgreSQL parses lands in (UNLOGGED, dropped once staged): its cells as text,
   * numbered in file order (an identity: one COPY numbers its rows 1, 2, 3, …).
   */
  async createCells(q: Q, id: string, columns: ImportColumns): Promise<void> {
    const t = cellsTable(id);
    const fields = Array.from({ length: columns.count }, (_, i) => `${cell(i)} text`);
    await q.unsafe(`drop table if exists ${t}`);
    await q.unsafe(`create unlogged table ${t} (n integer generated always as identity, ${fields.join(", ")})`);
  },

  /** COPY of the file's lines after its header into the cells table, parsed by PostgreSQL. */
  copyCellsIn(q: Q, id: string, columns: ImportColumns): Promise<Writable> {
    const fields = Array.from({ length: columns.count }, (_, i) => cell(i));
    return q.unsafe(`copy ${cellsTable(id)} (${fields.join(", ")}) from stdin with (format csv)`).writable();
  },

  async cellRows(q: Q, id: string): Promise<number> {
    const [r] = await q.unsafe<{ n: number }[]>(`select count(*)::int as n from ${cellsTable(id)}`);
    return r?.n ?? 0;
  },

  /**
   * The staging table made from the rows of the cells table SQL stages exactly as stageRow would
   * (see `certainRow`), in one statement (CREATE TABLE AS writes in bulk: three times faster than
   * INSERT … SELECT here): the file's row number (the header is row 1), the address and its
   * lowercase, `subscribed`, and the non-empty data cells as a JSON object in header order (built as
   * text: a third cheaper than json_build_object and json_strip_nulls). Answers the rows staged.
   */
  async stageCells(q: Q, id: string, columns: ImportColumns): Promise<number> {
    const email = cell(columns.email);
    const sub = columns.subscribed === null ? "null::boolean" : `lower(${cell(columns.subscribed)}) in (${SUBSCRIBED_WORDS.true.map(literal).join(", ")})`;
    // each `"key":value` as JSON text, or null for an empty cell, which concat_ws leaves out
    const members = columns.data.map(({ index }, i) => `$${i + 1}::text || to_json(nullif(${cell(index)}, ''))::text`);
    const data = members.length === 0 ? "'{}'::text" : `'{' || concat_ws(',', ${members.join(", ")}) || '}'`;
    await q.unsafe(`drop table if exists ${staging(id)}`);
    const made = await q.unsafe(
      `create unlogged table ${staging(id)} as
       select n + 1 as row_no, lower(${email}) as email_key, ${email} as email, ${sub} as subscribed, ${data} as data
       from ${cellsTable(id)} where ${certainRow(columns)}`,
      columns.data.map((d) => `${JSON.stringify(d.key)}:`),
    );
    return made.count;
  },

  /** The rows SQL could not stage, in file order, `rows` at a time: their row number and cells ("" for an empty one). */
  async *uncertainCells(q: Q, id: string, columns: ImportColumns, rows: number): AsyncIterable<Array<{ row: number; fields: string[] }>> {
    const fields = Array.from({ length: columns.count }, (_, i) => cell(i));
    const cursor = q.unsafe<Array<Record<string, string | null> & { n: number }>>(
      `select n, ${fields.join(", ")} from ${cellsTable(id)} where not ${certainRow(columns)} order by n`,
    ).cursor(rows);
    for await (const batch of cursor) yield batch.map((r) => ({ row: r.n + 1, fields: fields.map((f) => r[f] ?? "") }));
  },

  async dropCells(q: Q, id: string): Promise<void> {
    await q.unsafe(`drop table if exists ${cellsTable(id)}`);
  },

  /** The staged rows of `(after, upto]` that no later row of the file supersedes (the last row wins). */
  async batch(q: Q, id: string, after: number, upto: number): Promise<StagedRecord[]> {
    const t = staging(id);
    return q.unsafe<StagedRecord[]>(
      `select a.row_no, a.email, a.subscribed, a.data from ${t} a
       where a.row_no > $1 and a.row_no <= $2
         and not exists (select 1 from ${t} b where b.email_key = a.email_key and b.row_no > a.row_no)
       order by a.row_no`,
      [after, upto],
    );
  },

  /** The last staged row number (0 when none). */
  async lastRow(q: Q, id: string): Promise<number> {
    const [r] = await q.unsafe<{ n: number }[]>(`select coalesce(max(row_no), 0)::int as n from ${staging(id)}`);
    return r?.n ?? 0;
  },

  async stagingExists(q: Q, id: string): Promise<boolean> {
    const [r] = await q<{ t: string | null }[]>`select to_regclass(${staging(id)})::text as t`;
    return r?.t != null;
  },
});
