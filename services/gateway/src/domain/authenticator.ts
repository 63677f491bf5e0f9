import { BoundedMap, ExpiringMap } from "@mailroom/kit";
import { hashKey, type KeyKind, kindOf, parseBearer } from "./keys.js";
import type { LookupFailures } from "./lookup-failures.js";

/** An active key as authentication knows it (never the key itself: only its hash is stored). */
export interface KeyRecord {
  id: string;
  projectId: string;
  kind: KeyKind;
  rateLimit: number | null;
}

export interface KeyLookup {
  findActiveByHash(hash: string): Promise<KeyRecord | null>;
}

export interface Principal extends KeyRecord {}

export type AuthResult =
  | { kind: "ok"; principal: Principal }
  /** Every kind of failure: they all get the same 401. */
  | { kind: "denied" }
  /** The address spent its budget of failed lookups: 429, and no query. */
  | { kind: "throttled"; retryAfterSeconds: number };

const MAX_ENTRIES = 50_000;
/**
 * Hashes that named no key. A key is 32 random bytes, so none can be looked up before it is
 * created, and one that stopped working (revoked) stays refused: such an entry can be kept long.
 * Its own bounded map, so a flood of random keys cannot evict the valid keys' entries.
 */
const UNKNOWN_ENTRIES = 20_000;
const UNKNOWN_TTL_MS = 60_000;

const DENIED: AuthResult = { kind: "denied" };

/**
 * Resolves `Authorization` to a key record. Lookups are cached for at most `ttlMs` (≤ 1 s), and a
 * revocation broadcast evicts at once, so a revoked key stops working on every replica within a
 * second even if the broadcast is missed. An unknown key is remembered for a minute, and the client
 * address whose lookups keep finding nothing is refused without a query (decisions.md §12), so
 * random keys never become a flood of queries.
 */
export class Authenticator {
  private readonly cache = new BoundedMap<string, { record: KeyRecord; at: number }>(MAX_ENTRIES);
  private readonly unknown = new ExpiringMap<string, true>(UNKNOWN_ENTRIES, UNKNOWN_TTL_MS);

  constructor(
    private readonly keys: KeyLookup,
    private readonly ttlMs: number,
    /** Shared with the session cookies (decisions.md §15): one budget per client address. */
    private readonly failures: LookupFailures,
  ) {}

  /** `client` is the caller's address bucket (client-address.ts), charged for failed lookups. */
  async authenticate(header: string | undefined, need: "secret" | "any", client: string): Promise<AuthResult> {
    const key = parseBearer(header);
    if (!key) return DENIED;
    if (need === "secret" && kindOf(key) !== "secret") return DENIED;
    const hash = hashKey(key);
    const now = Date.now();
    const hit = this.cache.get(hash);
    let record: KeyRecord | null;
    if (hit && now - hit.at < this.ttlMs) {
      record = hit.record;
    } else if (this.unknown.get(hash)) {
      return DENIED;
    } else {
      const wait = this.failures.blockedFor(client, now);
      if (wait !== null) return { kind: "throttled", retryAfterSeconds: wait };
      record = await this.keys.findActiveByHash(hash);
      if (record) {
        this.cache.set(hash, { record, at: now });
      } else {
        this.cache.delete(hash);
        this.unknown.set(hash, true);
        await this.failures.charge(client);
      }
    }
    if (!record) return DENIED;
    if (need === "secret" && record.kind !== "secret") return DENIED;
    return { kind: "ok", principal: record };
  }

  evict(hash: string): void {
    this.cache.delete(hash);
  }
}
