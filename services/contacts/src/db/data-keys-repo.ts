import { traced, type Q, type Sql } from "@mailroom/kit";

/** What `register` found: every key the project has now, and those of the call it refused. */
export interface Registered {
  keys: string[];
  refused: string[];
}

/** A project's data keys (schema.ts `data_keys`): the limit's count and the export's columns. */
export const dataKeysRepo = traced("DataKeysRepo", {
  /**
   * Adds the keys the project does not have yet, unless that would take it past `max`: then none of
   * them (`refused`), so the write that needed them changes nothing. Under the project's lock, so
   * parallel writes are counted as serial ones and positions follow one another without gaps.
   */
  async register(sql: Sql, projectId: string, keys: string[], max: number): Promise<Registered> {
    return sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`data-keys:${projectId}`}, 0))`;
      const rows = await tx<{ key: string; position: number }[]>`select key, position from data_keys where project_id = ${projectId}`;
      const have = new Set(rows.map((r) => r.key));
      const fresh = [...new Set(keys)].filter((k) => !have.has(k));
      if (fresh.length === 0) return { keys: [...have], refused: [] };
      if (have.size + fresh.length > max) return { keys: [...have], refused: fresh };
      const last = rows.reduce((m, r) => Math.max(m, r.position), 0);
      await tx`
        insert into data_keys (project_id, key, position, created_at)
        select ${projectId}, k, ${last}::int + n::int, now() from unnest(${fresh}::text[]) with ordinality as t(k, n)`;
      return { keys: [...have, ...fresh], refused: [] };
    });
  },

  /** The position of the project's latest key (0: none): what an export's columns go up to. */
  async lastPosition(q: Q, projectId: string): Promise<number> {
    const [row] = await q<{ n: number }[]>`select coalesce(max(position), 0)::int as n from data_keys where project_id = ${projectId}`;
    return row?.n ?? 0;
  },

  /** The project's keys up to `position`, sorted by name: an export's columns. */
  async upTo(q: Q, projectId: string, position: number): Promise<string[]> {
    const rows = await q<{ key: string }[]>`select key from data_keys where project_id = ${projectId} and position <= ${position} order by key`;
    return rows.map((r) => r.key);
  },
});
