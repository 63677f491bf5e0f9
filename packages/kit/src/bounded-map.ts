/**
 * A Map that holds at most `limit` entries: adding a new key to a full map first drops the entry
 * stored earliest. The in-process caches of the services (API keys, DKIM keys, parsed templates,
 * workflow plans, click links, DNS answers) are bounded this way, so a stream of distinct keys
 * cannot grow a process without end. Deleting a key before setting it again moves it to the back.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}

/**
 * A BoundedMap whose answers also go stale: `get` gives nothing for an entry set more than `ttlMs`
 * ago (and drops it). For lookups a hot path may reuse for a moment, such as a sender's domain check.
 */
export class ExpiringMap<K, V> {
  private readonly entries: BoundedMap<K, { value: V; expires: number }>;

  constructor(
    limit: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new BoundedMap(limit);
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Stores `value` fresh, at the back of the bound's order. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
