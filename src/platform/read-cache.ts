import type { ChangeFeed } from './change-feed.js';

/**
 * Answers of hot partner reads kept in memory, grouped by what changes them (a business's
 * reviews, a week's scores). A group is forgotten when this process changes it, when another
 * process announces a change of it through the change feed (topic `topic`, key = the group),
 * and after `ttlMs` in any case. A load begun before a forget is not kept, so a read racing a
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
    changes.subscribe(topic, (group) => this.forget(group));
  }

  /** The kept answer of `group`/`key`, else `load()`'s (kept when nothing changed meanwhile). */
  async get(group: string, key: string, load: () => Promise<V>): Promise<V> {
    this.changes.check();
    const hit = this.groups.get(group)?.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) {
      if (this.size >= this.options.maxEntries) this.forget();
      let entries = this.groups.get(group);
      if (!entries) this.groups.set(group, (entries = new Map()));
      if (!entries.has(key)) this.size++;
      entries.set(key, { until: Date.now() + this.options.ttlMs, value });
    }
    return value;
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
