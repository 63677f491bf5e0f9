import type { ContactImport, ImportRowError } from "@mailroom/contracts";
import { isId, iso, json, traced, type Q, type Row } from "@mailroom/kit";
import type { Writable } from "node:stream";
import type { contactImports } from "./schema.js";

export type ImportRow = Row<typeof contactImports>;

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

export const importsRepo = traced("ImportsRepo", {
  async create(q: Q, r: { id: string; projectId: string; blob: string; bytes: number; topics: string[]; doubleOptIn: boolean; at: Date }): Promise<ImportRow> {
    const [row] = await q<ImportRow[]>`
      insert into contact_imports (id, project_id, status, phase, blob, bytes, topics, double_opt_in, created_at)
      values (${r.id}, ${r.projectId}, 'RUNNING', 'queued', ${r.blob}, ${r.bytes}, ${r.topics}::text[], ${r.doubleOptIn}, ${iso(r.at)}) returning *`;
    return row!;
  },

  async pending(q: Q, projectId: string): Promise<number> {
    const [r] = await q<{ n: number }[]>`select count(*)::int as n from contact_imports where project_id = ${projectId} and status = 'RUNNING'`;
    return r?.n ?? 0;
  },

  async byId(q: Q, projectId: string, id: string): Promise<ImportRow | null> {
    if (!isId(id)) return null;
    const [row] = await q<ImportRow[]>`select * from contact_imports where id = ${id} and project_id = ${projectId}`;
    return row ?? null;
  },

  /**
   * Takes the oldest RUNNING import nobody holds (never started, or its runner's lease ran out), of a
   * project with no other import held: one import per project at a time, so one tenant's files
   * queue behind each other and not in front of everyone else's.
   */
  async claim(q: Q, leaseMs: number): Promise<ImportRow | null> {
    const [row] = await q<ImportRow[]>`
      update contact_imports i set heartbeat_at = now()
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

  async heartbeat(q: Q, id: string): Promise<void> {
    await q`update contact_imports set heartbeat_at = now() where id = ${id} and status = 'RUNNING'`;
  },

  /** Gives an import back at a clean stop: the next claim (this replica's restart, another) takes it at once. */
  async release(q: Q, id: string): Promise<void> {
    await q`update contact_imports set heartbeat_at = null where id = ${id} and status = 'RUNNING'`;
  },

  /** (Re)starts loading: what an earlier attempt counted is forgotten with its staged rows. */
  async startLoading(q: Q, id: string): Promise<void> {
    await q`update contact_imports set phase = 'loading', rows = 0, created = 0, updated = 0, failed = 0, errors = '[]', applied_row = 0,
      awaiting_confirmation = 0 where id = ${id}`;
  },

  /** Progress while loading: rows read and the bad ones so far. */
  async loadProgress(q: Q, id: string, p: { rows: number; failed: number; errors: ImportRowError[] }): Promise<void> {
    await q`update contact_imports set rows = ${p.rows}, failed = ${p.failed}, errors = ${json(p.errors)}::jsonb, heartbeat_at = now() where id = ${id}`;
  },

  async loaded(q: Q, id: string, p: { rows: number; failed: number; errors: ImportRowError[] }): Promise<void> {
    await q`update contact_imports set phase = 'applying', rows = ${p.rows}, failed = ${p.failed}, errors = ${json(p.errors)}::jsonb where id = ${id}`;
  },

  /** One applied batch, in its transaction: a takeover resumes after `appliedRow`. */
  async applied(
    q: Q,
    id: string,
    p: { appliedRow: number; created: number; updated: number; failed: number; awaitingConfirmation: number; errors: ImportRowError[] },
  ): Promise<void> {
    await q`
      update contact_imports set applied_row = ${p.appliedRow}, created = created + ${p.created}, updated = updated + ${p.updated},
        failed = failed + ${p.failed}, awaiting_confirmation = awaiting_confirmation + ${p.awaitingConfirmation},
        errors = ${json(p.errors)}::jsonb, heartbeat_at = now()
      where id = ${id}`;
  },

  async finish(q: Q, id: string, status: "COMPLETED" | "FAILED", errors?: ImportRowError[]): Promise<void> {
    await q`
      update contact_imports set status = ${status}, phase = 'done', finished_at = now(),
        errors = coalesce(${errors === undefined ? null : json(errors)}::jsonb, errors)
      where id = ${id}`;
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
    await q.unsafe(`drop table if exists ${staging(id)}`);
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
