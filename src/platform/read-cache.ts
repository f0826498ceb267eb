import type { AtOnceOrLater } from './at-once.js';
import { BatchLoader } from './batch-loader.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * Answers of hot partner reads kept in memory, grouped by what changes them (a business's
 * reviews, a week's scores). A group is forgotten when this process changes it, when another
 * process announces a change of it through the change feed (topic `topic`, key = the group, or
 * '' for all), and after `ttlMs` in any case. A load begun before a forget is not kept, so a read racing a
 * change never stores the older answer.
 *
 * Misses of one key at the same time share one load (50 connections missing a page at once made
 * 50 loads, and a p99 of 100–190 ms on PostgreSQL each time pages expired together), and a key
 * read in the last fifth of its life is loaded again in the background while the kept answer is
 * still given, so pages in use do not expire at all.
 */
export class ReadCache<V> {
  private readonly groups = new Map<string, Map<string, { until: number; value: V }>>();
  private generation = 0;
  private size = 0;
  /** Wall time (expiry is about other processes, not the sandbox clock). */
  private readonly now: () => number;
  /** Loads under way, by group and key: joined by the misses that come meanwhile. */
  private readonly loading = new Map<string, Promise<V>>();
  /** Batch loads under way (`getMany`), by generation, group and key. */
  private readonly batches = new BatchLoader<V>();

  constructor(
    private readonly changes: ChangeFeed,
    readonly topic: string,
    private readonly options: { ttlMs: number; maxEntries: number; now?: () => number },
  ) {
    this.now = options.now ?? Date.now;
    // A change announced with the key '' concerns every group.
    changes.subscribe(topic, (group) => this.forget(group === '' ? undefined : group));
  }

  /** The kept answer of `group`/`key`, else `load()`'s (kept when nothing changed meanwhile). */
  async get(group: string, key: string, load: () => Promise<V>): Promise<V> {
    return this.read(group, key, load);
  }

  /**
   * As `get`, but a kept answer comes back as it is, not in a promise: for hot paths that answer
   * at once when they can (a promise a request is a measurable share of a cached read).
   */
  read(group: string, key: string, load: () => Promise<V>): AtOnceOrLater<V> {
    this.changes.check();
    const hit = this.groups.get(group)?.get(key);
    const now = this.now();
    if (hit && hit.until > now) {
      if (hit.until - now < this.options.ttlMs / 5) this.load(group, key, load).catch(() => {}); // the kept answer stands meanwhile
      return hit.value;
    }
    return this.load(group, key, load);
  }

  /** One load per group and key at a time; its answer is kept unless something was forgotten meanwhile. */
  private load(group: string, key: string, load: () => Promise<V>): Promise<V> {
    const id = `${group}\u0000${key}`;
    let pending = this.loading.get(id);
    if (!pending) {
      const generation = this.generation;
      const started: Promise<V> = load()
        .then((value) => {
          this.keep(generation, group, key, value);
          return value;
        })
        .finally(() => {
          if (this.loading.get(id) === started) this.loading.delete(id);
        });
      this.loading.set(id, (pending = started));
    }
    return pending;
  }

  /** The kept answer of `group`/`key` if it is still good, without waiting (hot paths with many keys). */
  peek(group: string, key: string): V | undefined {
    this.changes.check();
    const hit = this.groups.get(group)?.get(key);
    return hit && hit.until > this.now() ? hit.value : undefined;
  }

  /** `peek` of many keys of one group at once (one look for news of changes, one clock read). */
  private peekAll(group: string, keys: readonly string[]): Array<V | undefined> {
    this.changes.check();
    const entries = this.groups.get(group);
    const now = this.now();
    return keys.map((key) => {
      const hit = entries?.get(key);
      return hit && hit.until > now ? hit.value : undefined;
    });
  }

  /**
   * The answers of many keys of one group, in their order: at once (no promise) when every one
   * is kept, as on a hot read they nearly always are; else the missing ones loaded together by
   * `loadMissing` (given the keys, answering their values in that order) and kept. A key already
   * being loaded by another request joins that load; a load begun before a forget is not kept,
   * and no read after the forget joins it.
   */
  getMany(group: string, keys: readonly string[], loadMissing: (keys: string[]) => Promise<V[]>): V[] | Promise<V[]> {
    const kept = this.peekAll(group, keys);
    if (kept.every((value): value is V => value !== undefined)) return kept;
    const version = this.generation;
    const missing = keys.filter((_, i) => kept[i] === undefined);
    return this.batches
      .load(
        missing,
        (key) => `${version}\u0000${group}\u0000${key}`,
        async (batch) => {
          const values = await loadMissing(batch);
          batch.forEach((key, i) => this.keep(version, group, key, values[i]));
          return values;
        },
      )
      .then((loaded) => {
        let next = 0;
        return kept.map((value) => value ?? loaded[next++]);
      });
  }

  /** Keeps an answer loaded since generation `version`, unless something was forgotten meanwhile. */
  private keep(version: number, group: string, key: string, value: V): void {
    if (version !== this.generation) return;
    // Full: everything goes, unless this replaces a kept answer (a load ahead of expiry).
    if (this.size >= this.options.maxEntries && !this.groups.get(group)?.has(key)) this.forget();
    let entries = this.groups.get(group);
    if (!entries) this.groups.set(group, (entries = new Map()));
    if (!entries.has(key)) this.size++;
    entries.set(key, { until: this.now() + this.options.ttlMs, value });
  }

  /** Forgets one group, or everything (changes may have been missed). */
  forget(group?: string): void {
    this.generation++;
    // Reads after a change must not join a load begun before it.
    this.loading.clear();
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
