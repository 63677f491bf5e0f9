import type { Role } from "@mailroom/contracts";
import { traced, type Q } from "@mailroom/kit";

export interface SessionLookup {
  userId: string;
  /** The user's role in the asked project; null when not a member (or no project was asked). */
  role: Role | null;
  /** last_seen_at is old enough to be written again. */
  stale: boolean;
}

/** Sessions by the SHA-256 of their token (decisions.md §13). */
export const sessionsRepo = traced("SessionsRepo", {
  async create(q: Q, id: string, userId: string, maxMs: number): Promise<void> {
    await q`insert into sessions (id, user_id, expires_at) values (${id}, ${userId}, now() + ${maxMs} * interval '1 millisecond')`;
  },

  /** The live session's user and their role in `projectId`, in one query; null when the session is over. */
  async find(q: Q, id: string, projectId: string | null, idleMs: number): Promise<SessionLookup | null> {
    const [row] = await q<{ user_id: string; role: Role | null; stale: boolean }[]>`
      select s.user_id, m.role, s.last_seen_at < now() - interval '1 minute' as stale
      from sessions s left join memberships m on m.user_id = s.user_id and m.project_id = ${projectId}
      where s.id = ${id} and s.revoked_at is null and s.expires_at > now()
        and s.last_seen_at > now() - ${idleMs} * interval '1 millisecond'`;
    return row ? { userId: row.user_id, role: row.role, stale: row.stale } : null;
  },

  async touch(q: Q, id: string): Promise<void> {
    await q`update sessions set last_seen_at = now() where id = ${id}`;
  },

  async revoke(q: Q, id: string): Promise<void> {
    await q`update sessions set revoked_at = now() where id = ${id} and revoked_at is null`;
  },

  /** Revokes every live session of the user except `keepId` (null: all of them). */
  async revokeAllOf(q: Q, userId: string, keepId: string | null): Promise<number> {
    const rows = await q`
      update sessions set revoked_at = now()
      where user_id = ${userId} and revoked_at is null and (${keepId}::text is null or id <> ${keepId}::text)
      returning id`;
    return rows.length;
  },

  async purgeEnded(q: Q, idleMs: number): Promise<number> {
    const rows = await q`
      delete from sessions
      where expires_at < now() or revoked_at is not null or last_seen_at < now() - ${idleMs} * interval '1 millisecond'
      returning id`;
    return rows.length;
  },
});
