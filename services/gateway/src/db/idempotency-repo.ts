import { json, newId, traced, type Q, type Row } from "@mailroom/kit";
import type { idempotencyKeys } from "./schema.js";

export type Claim =
  /** This request runs: `claimId` goes to the service as `meta.idempotencyId`. */
  | { kind: "claimed"; claimId: string; takenOver: boolean }
  | { kind: "replay"; status: number; response: unknown }
  | { kind: "mismatch" }
  /** Another attempt holds the key for `retryAfterMs` more. */
  | { kind: "in_progress"; retryAfterMs: number };

type HeldRow = Pick<Row<typeof idempotencyKeys>, "route" | "request_hash" | "status" | "response"> & {
  expired: boolean;
  lease_left_ms: number | null;
};

/**
 * Idempotency-Key storage (decisions.md §3). Rows older than 24 h are treated as absent. A claim
 * holds its key for a lease (the route's timeout and a margin): a gateway that dies mid-request
 * leaves a claim the next retry takes over once the lease has run out, instead of a key stuck
 * "in progress" for a day. A takeover keeps the claim's id, so a service that dedupes on it (the
 * sending service for /v1/send) answers the retry with the first attempt's result.
 */
export const idempotencyRepo = traced("IdempotencyRepo", {
  async claim(q: Q, projectId: string, key: string, route: string, requestHash: string, leaseMs: number): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimId = newId();
      const inserted = await q`
        insert into idempotency_keys (project_id, key, route, request_hash, claim_id, locked_until)
        values (${projectId}, ${key}, ${route}, ${requestHash}, ${claimId}, now() + ${leaseMs} * interval '1 millisecond')
        on conflict do nothing returning key`;
      if (inserted.length) return { kind: "claimed", claimId, takenOver: false };
      const [row] = await q<HeldRow[]>`
        select route, request_hash, status, response, created_at < now() - interval '24 hours' as expired,
          (extract(epoch from (locked_until - now())) * 1000)::float8 as lease_left_ms
        from idempotency_keys where project_id = ${projectId} and key = ${key}`;
      if (!row) continue; // released in between: try to claim again
      if (row.expired) {
        await q`
          delete from idempotency_keys
          where project_id = ${projectId} and key = ${key} and created_at < now() - interval '24 hours'`;
        continue;
      }
      if (row.route !== route || row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.status !== null) return { kind: "replay", status: row.status, response: row.response };
      if (row.lease_left_ms !== null && row.lease_left_ms > 0) return { kind: "in_progress", retryAfterMs: row.lease_left_ms };
      const [taken] = await q<{ claim_id: string }[]>`
        update idempotency_keys set locked_until = now() + ${leaseMs} * interval '1 millisecond'
        where project_id = ${projectId} and key = ${key} and status is null and (locked_until is null or locked_until <= now())
        returning claim_id`;
      if (taken) return { kind: "claimed", claimId: taken.claim_id, takenOver: true };
    }
    return { kind: "in_progress", retryAfterMs: 1000 };
  },

  /** Stores the answer to replay. The first completion of a claim wins (a late twin changes nothing). */
  async complete(q: Q, projectId: string, key: string, claimId: string, status: number, response: unknown): Promise<void> {
    await q`
      update idempotency_keys set status = ${status}, response = ${json(response)}::jsonb, locked_until = null
      where project_id = ${projectId} and key = ${key} and claim_id = ${claimId} and status is null`;
  },

  /** The attempt did nothing (a 4xx): the key is free for a corrected request. */
  async release(q: Q, projectId: string, key: string, claimId: string): Promise<void> {
    await q`delete from idempotency_keys where project_id = ${projectId} and key = ${key} and claim_id = ${claimId} and status is null`;
  },

  /**
   * The attempt's outcome is unknown (a timeout, a 5xx): the service may still finish it. The key
   * stays claimed for `holdMs` more, then a retry takes it over.
   */
  async hold(q: Q, projectId: string, key: string, claimId: string, holdMs: number): Promise<void> {
    await q`
      update idempotency_keys set locked_until = now() + ${holdMs} * interval '1 millisecond'
      where project_id = ${projectId} and key = ${key} and claim_id = ${claimId} and status is null`;
  },

  async purgeExpired(q: Q): Promise<number> {
    const rows = await q`delete from idempotency_keys where created_at < now() - interval '24 hours' returning key`;
    return rows.length;
  },
});
