import type { HttpReply } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { type Claim, idempotencyRepo } from "../db/idempotency-repo.js";

/** One Idempotency-Key of one project. */
export interface IdempotencyKey {
  projectId: string;
  key: string;
}

/**
 * Idempotency-Key records (decisions.md §3): a request claims its key before it is forwarded, and
 * what the key holds afterwards depends on the answer (`settle`).
 */
export class IdempotencyKeys {
  constructor(
    private readonly sql: Sql,
    /** IDEMPOTENCY_RETRY_AFTER_MS: how long a key stays claimed after an attempt of unknown outcome. */
    private readonly retryAfterMs: number,
  ) {}

  /** How long a route's claim holds its key: a dead gateway's claim frees it once the request could no longer be running here. */
  leaseFor(routeTimeoutMs: number): number {
    return routeTimeoutMs + this.retryAfterMs;
  }

  claim(k: IdempotencyKey, route: string, requestHash: string, leaseMs: number): Promise<Claim> {
    return idempotencyRepo.claim(this.sql, k.projectId, k.key, route, requestHash, leaseMs);
  }

  /**
   * What the key holds now: a success is replayed, a 4xx changed nothing (the key is free for a
   * corrected request), anything else may still be finishing in the service (held a while).
   */
  async settle(k: IdempotencyKey, claimId: string, status: number, replay?: HttpReply): Promise<void> {
    if (status < 300 && replay) await idempotencyRepo.complete(this.sql, k.projectId, k.key, claimId, status, replay);
    else if (status < 500) await idempotencyRepo.release(this.sql, k.projectId, k.key, claimId);
    else await idempotencyRepo.hold(this.sql, k.projectId, k.key, claimId, this.retryAfterMs);
  }

  /** Keys older than 24 h count as absent; hourly, their rows go. */
  async purgeExpired(): Promise<void> {
    await idempotencyRepo.purgeExpired(this.sql);
  }
}
