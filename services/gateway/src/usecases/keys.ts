import { AppError, type ApiKey, type CreatedKey } from "@mailroom/contracts";
import { iso, isId, isoOrNull, type Metrics, type Sql } from "@mailroom/kit";
import { type KeyListing, keysRepo } from "../db/keys-repo.js";
import type { KeyRecord } from "../domain/authenticator.js";
import type { KeyKind } from "../domain/keys.js";

const apiKey = (k: KeyListing): ApiKey => ({ ...k, createdAt: iso(k.createdAt), revokedAt: isoOrNull(k.revokedAt) });

/** A project's API keys (decisions.md §13): listed, made and revoked from the dashboard, and looked up to authenticate. */
export class ProjectKeys {
  constructor(
    private readonly sql: Sql,
    private readonly metrics: Metrics,
    /** Evicts a revoked key here and tells every other replica to (the CLI's broadcast). */
    private readonly revoked: (hash: string) => void,
  ) {}

  /** The key behind a hash, for the Authenticator (which caches it); every lookup is counted by outcome. */
  async findActiveByHash(hash: string): Promise<KeyRecord | null> {
    const record = await keysRepo.findActiveByHash(this.sql, hash);
    // a flood of unknown keys shows here (it should stay flat)
    this.metrics.keyLookups.inc({ result: record ? "found" : "unknown" });
    return record;
  }

  /** A project's name (what sending asks, for its fixed confirmation text); null for an unknown id. */
  async projectName(projectId: string): Promise<string | null> {
    return isId(projectId) ? keysRepo.projectName(this.sql, projectId) : null;
  }

  async list(projectId: string): Promise<ApiKey[]> {
    return (await keysRepo.listKeys(this.sql, projectId)).map(apiKey);
  }

  async create(projectId: string, kind: KeyKind, rateLimit: number | undefined, name: string | undefined): Promise<CreatedKey> {
    const created = await keysRepo.createKey(this.sql, projectId, kind, rateLimit, name);
    return { ...apiKey(created), key: created.key };
  }

  async revoke(projectId: string, keyId: string): Promise<void> {
    // an id that is no UUID names no key (the services answer such ids the same way)
    if (!isId(keyId)) throw AppError.notFound("Key");
    const hash = await keysRepo.revokeInProject(this.sql, projectId, keyId);
    if (!hash) throw AppError.notFound("Key");
    this.revoked(hash);
  }
}
