import { columns, newId, type RowOf, traced, type Q, type Row, type Sql } from "@mailroom/kit";
import type { apiKeys } from "./schema.js";
import type { KeyRecord } from "../domain/authenticator.js";
import { generateKey, hashKey, keyPrefix, type KeyKind } from "../domain/keys.js";

type KeyRow = Row<typeof apiKeys>;
const LISTED = columns<KeyRow>()(["id", "kind", "name", "prefix", "rate_limit", "created_at", "revoked_at"]);
type ListedRow = RowOf<typeof LISTED>;
const toListing = (r: ListedRow): KeyListing => ({
  id: r.id, kind: r.kind, name: r.name, prefix: r.prefix, rateLimit: r.rate_limit, createdAt: r.created_at, revokedAt: r.revoked_at,
});

export interface KeyListing {
  id: string;
  kind: KeyKind;
  name: string;
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
      await keysRepo.insertKey(tx, id, "secret", secretKey, null, "secret");
      await keysRepo.insertKey(tx, id, "public", publicKey, null, "public");
    });
    return { id, name, secretKey, publicKey };
  },

  async projectExists(q: Q, projectId: string): Promise<boolean> {
    return (await keysRepo.projectName(q, projectId)) !== null;
  },

  async projectName(q: Q, projectId: string): Promise<string | null> {
    const [row] = await q<{ name: string }[]>`select name from projects where id = ${projectId}`;
    return row?.name ?? null;
  },

  /** A new key (named after its kind unless given a name): its listing and, this once, the key. */
  async createKey(q: Q, projectId: string, kind: KeyKind, rateLimit?: number, name?: string): Promise<KeyListing & { key: string }> {
    const key = generateKey(kind);
    const id = await keysRepo.insertKey(q, projectId, kind, key, rateLimit ?? null, name ?? kind);
    const [row] = await q<ListedRow[]>`select ${q.unsafe(LISTED.sql)} from api_keys where id = ${id}`;
    return { ...toListing(row!), key };
  },

  /** Stores a key by its hash and prefix only; returns its id. */
  async insertKey(q: Q, projectId: string, kind: KeyKind, key: string, rateLimit: number | null, name: string): Promise<string> {
    const id = newId();
    await q`
      insert into api_keys (id, project_id, kind, name, hash, prefix, rate_limit)
      values (${id}, ${projectId}, ${kind}, ${name}, ${hashKey(key)}, ${keyPrefix(key)}, ${rateLimit})`;
    return id;
  },

  async listKeys(q: Q, projectId: string): Promise<KeyListing[]> {
    const rows = await q<ListedRow[]>`select ${q.unsafe(LISTED.sql)} from api_keys where project_id = ${projectId} order by created_at, id`;
    return rows.map(toListing);
  },

  /**
   * Revokes a key of this project (again, if it was: the answer is the same); returns its hash for
   * cache invalidation, or null when the project has no such key.
   */
  async revokeInProject(q: Q, projectId: string, keyId: string): Promise<string | null> {
    const [row] = await q<{ hash: string }[]>`
      update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${keyId} and project_id = ${projectId} returning hash`;
    return row?.hash ?? null;
  },

  /** Returns the revoked key's hash (for cache invalidation), or null when no active key has that id. */
  async revoke(q: Q, keyId: string): Promise<string | null> {
    const [row] = await q<{ hash: string }[]>`
      update api_keys set revoked_at = now() where id = ${keyId} and revoked_at is null returning hash`;
    return row?.hash ?? null;
  },
});
