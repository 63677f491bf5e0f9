import { traced, type Q, type Row } from "@mailroom/kit";
import type { pendingConfirmations } from "./schema.js";

export type PendingConfirmationRow = Row<typeof pendingConfirmations>;

/** A confirmation email to ask of the sending service; `key` is also its idempotency key there. */
export interface ConfirmationRequest {
  key: string;
  projectId: string;
  contactId: string;
  email: string;
}

export const confirmationsRepo = traced("ConfirmationsRepo", {
  /** Records requests, due `delayMs` from now (0: the next drain takes them). A key already there stays as it is. */
  async add(q: Q, rows: ConfirmationRequest[], delayMs = 0): Promise<void> {
    if (rows.length === 0) return;
    await q`
      insert into pending_confirmations (idempotency_key, project_id, contact_id, email, not_before, created_at)
      select k, p, c, e, now() + ${delayMs} * interval '1 millisecond', now()
      from unnest(${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.projectId)}::uuid[],
                  ${rows.map((r) => r.contactId)}::uuid[], ${rows.map((r) => r.email)}::text[]) as v(k, p, c, e)
      on conflict (idempotency_key) do nothing`;
  },

  /**
   * Takes up to `limit` due requests, oldest first, hiding them from other replicas for a lease that
   * grows with each attempt (the retry's backoff when the call fails and the row stays).
   */
  async claim(q: Q, limit: number, leaseMs: number): Promise<PendingConfirmationRow[]> {
    return q<PendingConfirmationRow[]>`
      update pending_confirmations p set attempts = p.attempts + 1,
        not_before = now() + least(p.attempts + 1, 10) * ${leaseMs} * interval '1 millisecond'
      where p.idempotency_key in (
        select idempotency_key from pending_confirmations where not_before <= now()
        order by not_before limit ${limit} for update skip locked)
      returning p.*`;
  },

  async remove(q: Q, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await q`delete from pending_confirmations where idempotency_key = any(${keys}::text[])`;
  },
});
