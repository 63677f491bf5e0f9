import { newId, traced, type Q, type Row, type Sql } from "@mailroom/kit";
import type { apiKeys } from "./schema.js";
import { generateKey, hashKey, keyPrefix, type KeyKind } from "../domain/keys.js";

type KeyRow = Row<typeof apiKeys>;

export interface KeyRecord {
  id: string;
  projectId: string;
  kind: KeyKind;
  rateLimit: number | null;
}

export interface KeyListing {
  id: string;
  kind: KeyKind;
  prefix: string;
  rateLimit: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export const keysRepo = traced("KeysRepo", {
  async findActiveByHash(q: Q, hash: string): Promise<KeyRecord | null> {
    const [row] = await q<Pick<KeyRow, "id" | "project_id" | "kind" | "rate_limit">[]>`
      select id, project_id, kind, rate_limit from api_keys where hash = ${hash} and revoked_at is null limit 1`;
    return row ? { id: row.id, projectId: row.project_id, kind: row.kind, rateLimit: row.rate_limit } : null;
  },

  async createProject(sql: Sql, name: string): Promise<{ id: string; name: string; secretKey: string; publicKey: string }> {
    const id = newId();
    const secretKey = generateKey("secret");
    const publicKey = generateKey("public");
    await sql.begin(async (tx) => {
      await tx`insert into projects (id, name) values (${id}, ${name})`;
      await keysRepo.insertKey(tx, id, "secret", secretKey, null);
      await keysRepo.insertKey(tx, id, "public", publicKey, null);
    });
    return { id, name, secretKey, publicKey };
  },

  async projectExists(q: Q, projectId: string): Promise<boolean> {
    const rows = await q`select 1 from projects where id = ${projectId} limit 1`;
    return rows.length > 0;
  },

  async createKey(q: Q, projectId: string, kind: KeyKind, rateLimit?: number): Promise<{ id: string; key: string; kind: KeyKind }> {
    const key = generateKey(kind);
    const id = await keysRepo.insertKey(q, projectId, kind, key, rateLimit ?? null);
    return { id, key, kind };
  },

  /** Stores a key by its hash and prefix only; returns its id. */
  async insertKey(q: Q, projectId: string, kind: KeyKind, key: string, rateLimit: number | null): Promise<string> {
    const id = newId();
    await q`
      insert into api_keys (id, project_id, kind, hash, prefix, rate_limit)
      values (${id}, ${projectId}, ${kind}, ${hashKey(key)}, ${keyPrefix(key)}, ${rateLimit})`;
    return id;
  },

  async listKeys(q: Q, projectId: string): Promise<KeyListing[]> {
    const rows = await q<Pick<KeyRow, "id" | "kind" | "prefix" | "rate_limit" | "created_at" | "revoked_at">[]>`
      select id, kind, prefix, rate_limit, created_at, revoked_at from api_keys
      where project_id = ${projectId} order by created_at`;
    return rows.map((r) => ({ id: r.id, kind: r.kind, prefix: r.prefix, rateLimit: r.rate_limit, createdAt: r.created_at, revokedAt: r.revoked_at }));
  },

  /** Returns the revoked key's hash (for cache invalidation), or null when no active key has that id. */
  async revoke(q: Q, keyId: string): Promise<string | null> {
    const [row] = await q<{ hash: string }[]>`
      update api_keys set revoked_at = now() where id = ${keyId} and revoked_at is null returning hash`;
    return row?.hash ?? null;
  },
});
