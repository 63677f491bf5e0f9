import { and, eq, isNull, sql as dsql } from "drizzle-orm";
import type { Db } from "@mailroom/kit";
import { newId } from "@mailroom/kit";
import { apiKeys, projects } from "./schema.js";
import { generateKey, hashKey, keyPrefix, type KeyKind } from "../domain/keys.js";

export interface KeyRecord {
  id: string;
  projectId: string;
  kind: KeyKind;
  rateLimit: number | null;
}

export class KeysRepo {
  constructor(private readonly db: Db) {}

  async findActiveByHash(hash: string): Promise<KeyRecord | null> {
    const rows = await this.db
      .select({ id: apiKeys.id, projectId: apiKeys.projectId, kind: apiKeys.kind, rateLimit: apiKeys.rateLimit })
      .from(apiKeys)
      .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
      .limit(1);
    return rows[0] ?? null;
  }

  async createProject(name: string): Promise<{ id: string; name: string; secretKey: string; publicKey: string }> {
    const id = newId();
    const secretKey = generateKey("secret");
    const publicKey = generateKey("public");
    await this.db.transaction(async (tx) => {
      await tx.insert(projects).values({ id, name });
      await tx.insert(apiKeys).values([
        { id: newId(), projectId: id, kind: "secret", hash: hashKey(secretKey), prefix: keyPrefix(secretKey) },
        { id: newId(), projectId: id, kind: "public", hash: hashKey(publicKey), prefix: keyPrefix(publicKey) },
      ]);
    });
    return { id, name, secretKey, publicKey };
  }

  async projectExists(projectId: string): Promise<boolean> {
    const rows = await this.db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).limit(1);
    return rows.length > 0;
  }

  async createKey(projectId: string, kind: KeyKind, rateLimit?: number): Promise<{ id: string; key: string; kind: KeyKind }> {
    const key = generateKey(kind);
    const id = newId();
    await this.db
      .insert(apiKeys)
      .values({ id, projectId, kind, hash: hashKey(key), prefix: keyPrefix(key), rateLimit: rateLimit ?? null });
    return { id, key, kind };
  }

  async listKeys(projectId: string) {
    return this.db
      .select({
        id: apiKeys.id,
        kind: apiKeys.kind,
        prefix: apiKeys.prefix,
        rateLimit: apiKeys.rateLimit,
        createdAt: apiKeys.createdAt,
        revokedAt: apiKeys.revokedAt,
      })
      .from(apiKeys)
      .where(eq(apiKeys.projectId, projectId))
      .orderBy(apiKeys.createdAt);
  }

  /** Returns the revoked key's hash (for cache invalidation), or null when no active key has that id. */
  async revoke(keyId: string): Promise<string | null> {
    const rows = await this.db
      .update(apiKeys)
      .set({ revokedAt: dsql`now()` })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning({ hash: apiKeys.hash });
    return rows[0]?.hash ?? null;
  }
}
