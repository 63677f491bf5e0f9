import { newId, traced, type Q, type Sql } from "@mailroom/kit";

/**
 * A project's pending imports (RUNNING) and the places taken for uploads still arriving
 * (schema.ts `import_slots`), counted together under the project's lock, so parallel uploads are
 * admitted as serial ones would be (decisions.md §15).
 */
export const importSlotsRepo = traced("ImportSlotsRepo", {
  /** Holds the project's lock for the rest of the transaction (taking or using a place). */
  async lock(q: Q, projectId: string): Promise<void> {
    await q`select pg_advisory_xact_lock(hashtextextended(${`imports:${projectId}`}, 0))`;
  },

  /** RUNNING imports and live places of the project. */
  async pending(q: Q, projectId: string): Promise<number> {
    const [row] = await q<{ n: number }[]>`
      select (select count(*) from contact_imports where project_id = ${projectId} and status = 'RUNNING')::int
        + (select count(*) from import_slots where project_id = ${projectId} and expires_at > now())::int as n`;
    return row?.n ?? 0;
  },

  /** A place for an upload, held `ttlMs`, or null when the project has `max` pending already. */
  async reserve(sql: Sql, projectId: string, max: number, ttlMs: number): Promise<string | null> {
    return sql.begin(async (tx) => {
      await importSlotsRepo.lock(tx, projectId);
      await tx`delete from import_slots where project_id = ${projectId} and expires_at <= now()`;
      if ((await importSlotsRepo.pending(tx, projectId)) >= max) return null;
      const id = newId();
      await tx`insert into import_slots (id, project_id, expires_at) values (${id}, ${projectId}, now() + ${ttlMs} * interval '1 millisecond')`;
      return id;
    });
  },

  /** Uses up a live place (its import is being made in this transaction): whether it was held. */
  async take(q: Q, projectId: string, id: string): Promise<boolean> {
    const rows = await q`delete from import_slots where id = ${id} and project_id = ${projectId} and expires_at > now() returning id`;
    return rows.length > 0;
  },

  async release(q: Q, projectId: string, id: string): Promise<void> {
    await q`delete from import_slots where id = ${id} and project_id = ${projectId}`;
  },
});
