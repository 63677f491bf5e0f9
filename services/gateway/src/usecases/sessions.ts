import { randomBytes } from "node:crypto";
import { ExpiringMap, type Sql } from "@mailroom/kit";
import { sessionsRepo, type SessionLookup } from "../db/sessions-repo.js";
import { hashKey } from "../domain/keys.js";
import type { LookupFailures } from "../domain/lookup-failures.js";

/** A cookie that signs nobody in is charged to its client address, as an unknown API key is. */
export interface SessionGuard {
  failures: LookupFailures;
  client: string;
}

/** The client spent its budget of cookies that signed nobody in: 429 for this long, and no query. */
export interface Throttled {
  throttled: number;
}

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

  /**
   * The session's user and their role in `projectId` (null: not a member), or null when it is over.
   * With a `guard`, a cookie that signs nobody in (malformed, unknown, ended) is charged to the
   * client address, and an address past its budget gets Throttled instead of a query (decisions.md
   * §15); a session this replica has just seen keeps working from it.
   */
  async lookup(token: string, projectId: string | null): Promise<SessionLookup | null>;
  async lookup(token: string, projectId: string | null, guard: SessionGuard): Promise<SessionLookup | null | Throttled>;
  async lookup(token: string, projectId: string | null, guard?: SessionGuard): Promise<SessionLookup | null | Throttled> {
    const wellFormed = /^[A-Za-z0-9_-]{43}$/.test(token);
    const id = wellFormed ? hashKey(token) : "";
    const key = `${id}:${projectId ?? ""}`;
    if (wellFormed && this.times.cacheMs > 0) {
      const hit = this.cache.get(key);
      if (hit) return hit;
    }
    const wait = guard?.failures.blockedFor(guard.client) ?? null;
    if (wait !== null) return { throttled: wait };
    const found = wellFormed ? await this.find(id, key, projectId) : null;
    if (!found && guard) await guard.failures.charge(guard.client);
    return found;
  }

  private async find(id: string, key: string, projectId: string | null): Promise<SessionLookup | null> {
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

  /**
   * Ends every session of the user but the one of `keep` (a password change keeps the browser that
   * made it; "Sign out everywhere" keeps none). Returns how many ended.
   */
  async revokeAll(userId: string, keep?: string): Promise<number> {
    const ended = await sessionsRepo.revokeAllOf(this.sql, userId, keep === undefined ? null : hashKey(keep));
    this.cache.clear();
    return ended;
  }
}
