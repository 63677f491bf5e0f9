import type { Sql } from "@mailroom/kit";

export type Claim =
  | { kind: "claimed" }
  | { kind: "replay"; status: number; response: unknown }
  | { kind: "mismatch" }
  | { kind: "in_progress" };

/** Idempotency-Key storage (decisions.md §3). Rows older than 24 h are treated as absent. */
export class IdempotencyRepo {
  constructor(private readonly sql: Sql) {}

  async claim(projectId: string, key: string, route: string, requestHash: string): Promise<Claim> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const inserted = await this.sql`
        insert into idempotency_keys (project_id, key, route, request_hash)
        values (${projectId}, ${key}, ${route}, ${requestHash})
        on conflict do nothing returning key`;
      if (inserted.length) return { kind: "claimed" };
      const [row] = await this.sql<{ route: string; request_hash: string; status: number | null; response: unknown; expired: boolean }[]>`
        select route, request_hash, status, response, created_at < now() - interval '24 hours' as expired
        from idempotency_keys where project_id = ${projectId} and key = ${key}`;
      if (!row) continue; // released in between: try to claim again
      if (row.expired) {
        await this.release(projectId, key);
        continue;
      }
      if (row.route !== route || row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.status === null) return { kind: "in_progress" };
      return { kind: "replay", status: row.status, response: row.response };
    }
    return { kind: "in_progress" };
  }

  async complete(projectId: string, key: string, status: number, response: unknown): Promise<void> {
    await this.sql`
      update idempotency_keys set status = ${status}, response = ${JSON.stringify(response)}::jsonb
      where project_id = ${projectId} and key = ${key}`;
  }

  async release(projectId: string, key: string): Promise<void> {
    await this.sql`delete from idempotency_keys where project_id = ${projectId} and key = ${key}`;
  }

  async purgeExpired(): Promise<number> {
    const rows = await this.sql`delete from idempotency_keys where created_at < now() - interval '24 hours' returning key`;
    return rows.length;
  }
}
