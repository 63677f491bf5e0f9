import { newId, type Sql } from "@mailroom/kit";

export type Claim =
  /** This request runs: `claimId` goes to the service as `meta.idempotencyId`. */
  | { kind: "claimed"; claimId: string; takenOver: boolean }
  | { kind: "replay"; status: number; response: unknown }
  | { kind: "mismatch" }
  /** Another attempt holds the key for `retryAfterMs` more. */
  | { kind: "in_progress"; retryAfterMs: number };

interface Row {
  route: string;
  request_hash: string;
  status: number | null;
  response: unknown;
  expired: boolean;
  lease_left_ms: number | null;
}

/**
 * Idempotency-Key storage (decisions.md §3). Rows older than 24 h are treated as absent. A claim
 * holds its key for a lease (the route's timeout and a margin): a gateway that dies mid-request
 * leaves a claim the next retry takes over once the lease has run out, instead of a key stuck
 * "in progress" for a day. A takeover keeps the claim's id, so a service that dedupes on it (the
 * sending service for /v1/send) answers the retry with the first attempt's result.
 */
export class IdempotencyRepo {
  constructor(private readonly sql: Sql) {}

  async claim(projectId: string, key: string, route: string, requestHash: string, leaseMs: number): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimId = newId();
      const inserted = await this.sql`
        insert into idempotency_keys (project_id, key, route, request_hash, claim_id, locked_until)
        values (${projectId}, ${key}, ${route}, ${requestHash}, ${claimId}, now() + ${leaseMs} * interval '1 millisecond')
        on conflict do nothing returning key`;
      if (inserted.length) return { kind: "claimed", claimId, takenOver: false };
      const [row] = await this.sql<Row[]>`
        select route, request_hash, status, response, created_at < now() - interval '24 hours' as expired,
          (extract(epoch from (locked_until - now())) * 1000)::float8 as lease_left_ms
        from idempotency_keys where project_id = ${projectId} and key = ${key}`;
      if (!row) continue; // released in between: try to claim again
      if (row.expired) {
        await this.sql`
          delete from idempotency_keys
          where project_id = ${projectId} and key = ${key} and created_at < now() - interval '24 hours'`;
        continue;
      }
      if (row.route !== route || row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.status !== null) return { kind: "replay", status: row.status, response: row.response };
      if (row.lease_left_ms !== null && row.lease_left_ms > 0) return { kind: "in_progress", retryAfterMs: row.lease_left_ms };
      const [taken] = await this.sql<{ claim_id: string }[]>`
        update idempotency_keys set locked_until = now() + ${leaseMs} * interval '1 millisecond'
        where project_id = ${projectId} and key = ${key} and status is null and (locked_until is null or locked_until <= now())
        returning claim_id`;
      if (taken) return { kind: "claimed", claimId: taken.claim_id, takenOver: true };
    }
    return { kind: "in_progress", retryAfterMs: 1000 };
  }

  /** Stores the answer to replay. The first completion of a claim wins (a late twin changes nothing). */
  async complete(projectId: string, key: string, claimId: string, status: number, response: unknown): Promise<void> {
    await this.sql`
      update idempotency_keys set status = ${status}, response = ${JSON.stringify(response)}::jsonb, locked_until = null
      where project_id = ${projectId} and key = ${key} and claim_id = ${claimId} and status is null`;
  }

  /** The attempt did nothing (a 4xx): the key is free for a corrected request. */
  async release(projectId: string, key: string, claimId: string): Promise<void> {
    await this.sql`delete from idempotency_keys where project_id = ${projectId} and key = ${key} and claim_id = ${claimId} and status is null`;
  }

  /**
   * The attempt's outcome is unknown (a timeout, a 5xx): the service may still finish it. The key
   * stays claimed for `holdMs` more, then a retry takes it over.
   */
  async hold(projectId: string, key: string, claimId: string, holdMs: number): Promise<void> {
    await this.sql`
      update idempotency_keys set locked_until = now() + ${holdMs} * interval '1 millisecond'
      where project_id = ${projectId} and key = ${key} and claim_id = ${claimId} and status is null`;
  }

  async purgeExpired(): Promise<number> {
    const rows = await this.sql`delete from idempotency_keys where created_at < now() - interval '24 hours' returning key`;
    return rows.length;
  }
}
