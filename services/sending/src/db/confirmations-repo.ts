import { traced, type Q, type Sql } from "@mailroom/kit";

/** Confirmation emails an address may get in a window of 24 hours (decisions.md §15). */
export const CONFIRMATION_QUOTA = { perProject: 1, acrossProjects: 3, windowHours: 24 } as const;

/**
 * The bookkeeping that keeps double opt-in from being turned against an address: how many
 * confirmations went to it lately, and which confirmation links were used.
 */
export const confirmationsRepo = traced("ConfirmationsRepo", {
  /**
   * Takes the address's place in the quota for this request, or says there is none left. Requests
   * for one address run one at a time (a transaction lock on the address), so parallel requests are
   * counted exactly as serial ones. A request that took its place before (a retry, same key) keeps it.
   */
  async claim(sql: Sql, c: { projectId: string; address: string; key: string }): Promise<boolean> {
    const address = c.address.toLowerCase();
    return sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`confirmation:${address}`}, 0))`;
      const [seen] = await tx<{ mine: boolean; here: number; everywhere: number }[]>`
        select coalesce(bool_or(project_id = ${c.projectId} and idempotency_key = ${c.key}), false) as mine,
          (count(*) filter (where project_id = ${c.projectId}))::int as here, count(*)::int as everywhere
        from confirmation_sends
        where address = ${address} and sent_at > now() - ${CONFIRMATION_QUOTA.windowHours} * interval '1 hour'`;
      if (seen!.mine) return true;
      if (seen!.here >= CONFIRMATION_QUOTA.perProject || seen!.everywhere >= CONFIRMATION_QUOTA.acrossProjects) return false;
      await tx`
        insert into confirmation_sends (project_id, idempotency_key, address) values (${c.projectId}, ${c.key}, ${address})
        on conflict do nothing`;
      return true;
    });
  },

  /** Gives a claimed place back (its email could not be queued). */
  async release(q: Q, projectId: string, key: string): Promise<void> {
    await q`delete from confirmation_sends where project_id = ${projectId} and idempotency_key = ${key}`;
  },

  /** Marks a confirmation link used; false when it was already. */
  async use(q: Q, emailId: string): Promise<boolean> {
    const rows = await q`insert into confirmation_links_used (email_id) values (${emailId}) on conflict do nothing returning email_id`;
    return rows.length > 0;
  },

  /** The link's click did not go through (its call failed): it works again. */
  async unuse(q: Q, emailId: string): Promise<void> {
    await q`delete from confirmation_links_used where email_id = ${emailId}`;
  },

  async used(q: Q, emailId: string): Promise<boolean> {
    const rows = await q`select 1 from confirmation_links_used where email_id = ${emailId}`;
    return rows.length > 0;
  },

  /** Quota rows past their window, and used links past their lifetime (an expired link is refused anyway). */
  async prune(q: Q, linkDays: number): Promise<void> {
    await q`delete from confirmation_sends where sent_at < now() - ${CONFIRMATION_QUOTA.windowHours + 1} * interval '1 hour'`;
    await q`delete from confirmation_links_used where used_at < now() - ${linkDays + 1} * interval '1 day'`;
  },
});
