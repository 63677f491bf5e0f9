import { BoundedMap } from "@mailroom/kit";
import type { KeyRecord } from "../db/keys-repo.js";
import { hashKey, kindOf, parseBearer } from "./keys.js";

export interface KeyLookup {
  findActiveByHash(hash: string): Promise<KeyRecord | null>;
}

export interface Principal extends KeyRecord {}

const MAX_ENTRIES = 50_000;

/**
 * Resolves `Authorization` to a key record. Lookups are cached for at most `ttlMs` (≤ 1 s), and a
 * revocation broadcast evicts at once, so a revoked key stops working on every replica within a
 * second even if the broadcast is missed. Unknown keys are cached too, so a flood of random keys
 * does not become a flood of queries.
 */
export class Authenticator {
  private readonly cache = new BoundedMap<string, { record: KeyRecord | null; at: number }>(MAX_ENTRIES);

  constructor(
    private readonly keys: KeyLookup,
    private readonly ttlMs: number,
  ) {}

  /** Returns the principal, or null for every kind of failure (they all get the same 401). */
  async authenticate(header: string | undefined, need: "secret" | "any"): Promise<Principal | null> {
    const key = parseBearer(header);
    if (!key) return null;
    if (need === "secret" && kindOf(key) !== "secret") return null;
    const hash = hashKey(key);
    const now = Date.now();
    const hit = this.cache.get(hash);
    let record: KeyRecord | null;
    if (hit && now - hit.at < this.ttlMs) {
      record = hit.record;
    } else {
      record = await this.keys.findActiveByHash(hash);
      this.cache.set(hash, { record, at: now });
    }
    if (!record) return null;
    if (need === "secret" && record.kind !== "secret") return null;
    return record;
  }

  evict(hash: string): void {
    this.cache.delete(hash);
  }
}
