import type { ChangeFeed } from './change-feed.js';

/**
 * Answers of hot partner reads kept in memory, grouped by what changes them (a business's
 * reviews, a week's scores). A group is forgotten when this process changes it, when another
 * process announces a change of it through the change feed (topic `topic`, key = the group, or
 * '' for all), and after `ttlMs` in any case. A load begun before a forget is not kept, so a read racing a
 * change never stores the older answer.
 */
export class ReadCache<V> {
  private readonly groups = new Map<string, Map<string, { until: number; value: V }>>();
  private generation = 0;
  private size = 0;

  constructor(
    private readonly changes: ChangeFeed,
    readonly topic: string,
    private readonly options: { ttlMs: number; maxEntries: number },
  ) {
    // A change announced with the key '' concerns every group.
    changes.subscribe(topic, (group) => this.forget(group === '' ? undefined : group));
  }

  /** The kept answer of `group`/`key`, else `load()`'s (kept when nothing changed meanwhile). */
  async get(group: string, key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(group, key);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const value = await load();
    this.keep(generation, group, key, value);
    return value;
  }

  /** The kept answer of `group`/`key` if it is still good, without waiting (hot paths with many keys). */
  peek(group: string, key: string): V | undefined {
    this.changes.check();
    const hit = this.groups.get(group)?.get(key);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  /** `peek` of many keys of one group at once (one look for news of changes, one clock read). */
  peekAll(group: string, keys: readonly string[]): Array<V | undefined> {
    this.changes.check();
    const entries = this.groups.get(group);
    const now = Date.now();
    return keys.map((key) => {
      const hit = entries?.get(key);
      return hit && hit.until > now ? hit.value : undefined;
    });
  }

  /** Where a load begins: pass it to `keep` with the answer. */
  get version(): number {
    return this.generation;
  }

  /** Keeps an answer loaded since `version` was read, unless something was forgotten meanwhile. */
  keep(version: number, group: string, key: string, value: V): void {
    if (version !== this.generation) return;
    if (this.size >= this.options.maxEntries) this.forget();
    let entries = this.groups.get(group);
    if (!entries) this.groups.set(group, (entries = new Map()));
    if (!entries.has(key)) this.size++;
    entries.set(key, { until: Date.now() + this.options.ttlMs, value });
  }

  /** Forgets one group, or everything (changes may have been missed). */
  forget(group?: string): void {
    this.generation++;
    if (group === undefined) {
      this.groups.clear();
      this.size = 0;
      return;
    }
    const entries = this.groups.get(group);
    if (!entries) return;
    this.size -= entries.size;
    this.groups.delete(group);
  }
}
