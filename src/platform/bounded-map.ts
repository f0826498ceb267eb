/**
 * A Map that empties itself when a new key would take it past `max` entries: the one way pbs
 * bounds a memo of results whose keys repeat (dates, time zones, query words, URLs, credentials
 * just checked). Emptying costs one miss per key afterwards and nothing per hit, where an LRU
 * would book-keep on every read of a path that runs per request.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}

/** The same bound for a set of values already checked (valid dates, valid time zones). */
export class BoundedSet<T> extends Set<T> {
  constructor(readonly max: number) {
    super();
  }

  override add(value: T): this {
    if (this.size >= this.max && !this.has(value)) this.clear();
    return super.add(value);
  }
}
