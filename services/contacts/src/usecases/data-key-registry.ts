import { AppError } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { dataKeysRepo } from "../db/data-keys-repo.js";

/** Distinct data keys a project may hold (decisions.md §15). */
export const MAX_PROJECT_DATA_KEYS = 2000;

/** Projects whose keys a replica remembers, and the characters of all their keys together. */
const MAX_PROJECTS = 2000;
const MAX_CHARS = 4_000_000;

/**
 * The project data-key limit on every path that writes contact data (POST/PATCH /contacts,
 * /v1/track, /v1/send, imports). A key, once registered, stays registered, so a replica that has
 * seen a project's keys can tell a write with only those keys apart without asking anyone: the
 * common write (a key the project has used before) costs a set lookup per key and no query. A write
 * with a key this replica has not seen registers it first, in a short transaction of its own, which
 * also brings back every key of the project for the next writes. Over the limit, the write is
 * refused with 400 `data_keys_limit` before anything of it is written.
 *
 * A key registered by a write that then fails for another reason stays registered (it counts, and
 * the export shows its empty column): the registry never shrinks, which is what keeps the cache
 * right without invalidation.
 */
export class DataKeyRegistry {
  /** Project → its keys; insertion order is eviction order. */
  private readonly known = new Map<string, Set<string>>();
  private chars = 0;

  constructor(
    private readonly sql: Sql,
    private readonly max = MAX_PROJECT_DATA_KEYS,
  ) {}

  /**
   * Refuses a write whose new keys would take the project past the limit; registers them otherwise.
   * Null when every key is known here: nothing to wait for (a hot path's caller skips the await).
   */
  admit(projectId: string, keys: readonly string[]): Promise<void> | null {
    const known = this.known.get(projectId);
    let missing: string[] | undefined;
    for (const k of keys) if (!known?.has(k)) (missing ??= []).push(k);
    return missing ? this.register(projectId, missing) : null;
  }

  private async register(projectId: string, missing: string[]): Promise<void> {
    const { keys: all, refused } = await dataKeysRepo.register(this.sql, projectId, missing, this.max);
    this.remember(projectId, all);
    if (refused.length > 0) {
      const message = `The project holds ${all.length} data keys, and ${refused.length} more would pass its limit of ${this.max}`;
      throw AppError.validation(message, [{ path: `data.${refused[0]}`, message: `would be data key ${all.length + 1} of the project` }], "data_keys_limit");
    }
  }

  private remember(projectId: string, keys: string[]): void {
    this.forget(projectId);
    const size = keys.reduce((n, k) => n + k.length, 0);
    this.known.set(projectId, new Set(keys));
    this.chars += size;
    for (const oldest of this.known.keys()) {
      if (this.known.size <= MAX_PROJECTS && this.chars <= MAX_CHARS) break;
      this.forget(oldest);
    }
  }

  private forget(projectId: string): void {
    const set = this.known.get(projectId);
    if (!set) return;
    for (const k of set) this.chars -= k.length;
    this.known.delete(projectId);
  }
}
