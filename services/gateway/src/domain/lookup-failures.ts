import { BoundedMap } from "@mailroom/kit";
import type { RateDecision } from "./rate-decision.js";

/** Charges a client address for a lookup that found nothing (a Redis token bucket, fail open). */
export interface FailureBudget {
  take(client: string): Promise<RateDecision>;
}

const BLOCKED_ENTRIES = 10_000;

/**
 * Credentials that name nothing (unknown API keys, unknown session cookies), counted per client
 * address in one shared budget (decisions.md §12, §15): past it the address is refused without a
 * query until its bucket refills. This replica remembers until when, so a refused address costs no
 * Redis call either.
 */
export class LookupFailures {
  /** Client address → until when this replica refuses its lookups (learnt from the shared bucket). */
  private readonly blocked = new BoundedMap<string, number>(BLOCKED_ENTRIES);

  constructor(private readonly budget: FailureBudget) {}

  /** Seconds `client` must wait before its next lookup, or null when it may look up now. */
  blockedFor(client: string, now = Date.now()): number | null {
    const until = this.blocked.get(client);
    return until !== undefined && until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : null;
  }

  /** A lookup of `client` found nothing. */
  async charge(client: string): Promise<void> {
    const charged = await this.budget.take(client);
    if (!charged.allowed) this.blocked.set(client, Date.now() + charged.resetSeconds * 1000);
  }
}
