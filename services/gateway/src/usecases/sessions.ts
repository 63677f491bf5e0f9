import { randomBytes } from "node:crypto";
import { ExpiringMap, type Sql } from "@mailroom/kit";
import { sessionsRepo, type SessionLookup } from "../db/sessions-repo.js";
import { hashKey } from "../domain/keys.js";

export interface SessionTimes {
  idleMs: number;
  maxMs: number;
  /** How long a lookup is reused (≤ 1 s): the bound on how late a logout or a removed member is seen by another replica. */
  cacheMs: number;
}

const CACHE_ENTRIES = 20_000;

/**
 * Dashboard sessions. The cookie carries 32 random bytes; the database only their SHA-256, so a
 * leaked table signs nobody in. Lookups (with the member's role in the project asked) are cached
 * briefly in a bounded map, as API keys are, so a busy dashboard costs a query a second, not one
 * a request.
 */
export class Sessions {
  private readonly cache: ExpiringMap<string, SessionLookup | null>;

  constructor(
    private readonly sql: Sql,
    readonly times: SessionTimes,
  ) {
    this.cache = new ExpiringMap(CACHE_ENTRIES, Math.max(1, times.cacheMs));
  }

  /** A new session for `userId`; returns the cookie's token. */
  async create(userId: string): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    await sessionsRepo.create(this.sql, hashKey(token), userId, this.times.maxMs);
    return token;
  }

  /** The session's user and their role in `projectId` (null: not a member), or null when it is over. */
  async lookup(token: string, projectId: string | null): Promise<SessionLookup | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const id = hashKey(token);
    const key = `${id}:${projectId ?? ""}`;
    if (this.times.cacheMs > 0) {
      const hit = this.cache.get(key);
      if (hit !== undefined) return hit;
    }
    const found = await sessionsRepo.find(this.sql, id, projectId, this.times.idleMs);
    // written at most once a minute: the idle bound is days, and a write per request would cost more than the read
    if (found?.stale) await sessionsRepo.touch(this.sql, id);
    if (this.times.cacheMs > 0) this.cache.set(key, found && { ...found, stale: false });
    return found;
  }

  /** Sessions past their idle or absolute bound (hourly). */
  async purgeEnded(): Promise<void> {
    await sessionsRepo.purgeEnded(this.sql, this.times.idleMs);
  }

  async revoke(token: string): Promise<void> {
    await sessionsRepo.revoke(this.sql, hashKey(token));
    // this replica forgets it now; the others within cacheMs
    this.cache.clear();
  }
}
