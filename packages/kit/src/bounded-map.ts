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
