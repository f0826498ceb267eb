import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/platform/change-feed.js';
import { ReadCache } from '../../src/platform/read-cache.js';
import { dialects, openTestDatabase, type TestDatabase } from '../support/harness.js';
import { TEST_DEADLINE_MS } from '../support/wait.js';

/** A load that answers when told to, counting how often it was started. */
function controlledLoads() {
  const waiting: Array<(value: string) => void> = [];
  let started = 0;
  return {
    load: () =>
      new Promise<string>((resolve) => {
        started++;
        waiting.push(resolve);
      }),
    get started() {
      return started;
    },
    answer(value: string) {
      waiting.shift()!(value);
    },
  };
}

/** The kept answers of hot partner reads (reviews pages, waitlist snapshots): one load at a time, renewed before they expire. */
describe.each(dialects)('read cache on %s', (dialect) => {
  let database: TestDatabase;
  let feed: ChangeFeed;

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    feed = new ChangeFeed(database);
  });
  afterAll(() => database.drop());

  it('gives misses of one key at the same time one load', async () => {
    const cache = new ReadCache<string>(feed, 'probe-shared', { ttlMs: 1000, maxEntries: 10, now: () => 0 });
    const loads = controlledLoads();
    const readers = Array.from({ length: 50 }, () => cache.get('page', 'a', loads.load));
    expect(loads.started).toBe(1);
    loads.answer('A');
    expect(await Promise.all(readers)).toEqual(Array(50).fill('A'));
    expect(await cache.get('page', 'a', loads.load)).toBe('A');
    expect(loads.started).toBe(1);
  });

  it('loads a key again in the last fifth of its life while still giving the kept answer', async () => {
    let wall = 0;
    const cache = new ReadCache<string>(feed, 'probe-ahead', { ttlMs: 1000, maxEntries: 10, now: () => wall });
    const loads = controlledLoads();
    const first = cache.get('page', 'a', loads.load);
    loads.answer('old');
    expect(await first).toBe('old');

    wall = 700; // not yet in its last fifth
    expect(await cache.get('page', 'a', loads.load)).toBe('old');
    expect(loads.started).toBe(1);
    wall = 850; // in it: answered at once, and loaded again once however many read meanwhile
    expect(await cache.get('page', 'a', loads.load)).toBe('old');
    expect(await cache.get('page', 'a', loads.load)).toBe('old');
    expect(loads.started).toBe(2);
    loads.answer('new');
    await expect.poll(() => cache.peek('page', 'a'), { timeout: TEST_DEADLINE_MS }).toBe('new');
    wall = 1500; // past the first answer's life, within the new one's
    expect(await cache.get('page', 'a', loads.load)).toBe('new');
    expect(loads.started).toBe(2);
  });

  it('when full, replaces a kept answer loaded again without forgetting the others', async () => {
    let wall = 0;
    const cache = new ReadCache<string>(feed, 'probe-full', { ttlMs: 1000, maxEntries: 2, now: () => wall });
    await cache.get('page', 'a', async () => 'A');
    await cache.get('page', 'b', async () => 'B');
    wall = 900;
    expect(await cache.get('page', 'a', async () => 'A again')).toBe('A');
    await expect.poll(() => cache.peek('page', 'a'), { timeout: TEST_DEADLINE_MS }).toBe('A again');
    expect(cache.peek('page', 'b')).toBe('B');
    // A third key does not fit: everything kept goes, and it is kept.
    await cache.get('page', 'c', async () => 'C');
    expect([cache.peek('page', 'a'), cache.peek('page', 'b'), cache.peek('page', 'c')]).toEqual([undefined, undefined, 'C']);
  });

  it('does not let a read after a change join a load begun before it', async () => {
    const cache = new ReadCache<string>(feed, 'probe-forget', { ttlMs: 1000, maxEntries: 10, now: () => 0 });
    const loads = controlledLoads();
    const before = cache.get('page', 'a', loads.load);
    cache.forget('page');
    const after = cache.get('page', 'a', loads.load);
    expect(loads.started).toBe(2);
    loads.answer('before the change');
    loads.answer('after the change');
    expect(await before).toBe('before the change');
    expect(await after).toBe('after the change');
    // Only the load begun after the change is kept.
    expect(cache.peek('page', 'a')).toBe('after the change');
  });

  it('reads many keys at once: kept ones without a promise, the missing ones in one batch that concurrent readers join', async () => {
    const cache = new ReadCache<string>(feed, 'probe-many', { ttlMs: 1000, maxEntries: 100, now: () => 0 });
    const batches: string[][] = [];
    const release: Array<() => void> = [];
    const loadMissing = (keys: string[]) => {
      batches.push(keys);
      return new Promise<string[]>((resolve) => release.push(() => resolve(keys.map((k) => k.toUpperCase()))));
    };
    const first = cache.getMany('range', ['a', 'b', 'c'], loadMissing);
    // b and c are already being loaded: only d is loaded for the second reader.
    const second = cache.getMany('range', ['b', 'c', 'd'], loadMissing);
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
    release.forEach((go) => go());
    expect(await first).toEqual(['A', 'B', 'C']);
    expect(await second).toEqual(['B', 'C', 'D']);
    // All kept now: answered at once, in the order asked, with no load.
    expect(cache.getMany('range', ['d', 'a'], loadMissing)).toEqual(['D', 'A']);
    expect(batches).toHaveLength(2);
  });

  it('keeps no batch begun before a change, and lets no read after it join one', async () => {
    const cache = new ReadCache<string>(feed, 'probe-many-forget', { ttlMs: 1000, maxEntries: 100, now: () => 0 });
    const release: Array<() => void> = [];
    let loads = 0;
    const loadMissing = (keys: string[]) => {
      const answer = `load ${++loads}`;
      return new Promise<string[]>((resolve) => release.push(() => resolve(keys.map(() => answer))));
    };
    const before = cache.getMany('range', ['a'], loadMissing);
    cache.forget('range');
    const after = cache.getMany('range', ['a'], loadMissing);
    expect(loads).toBe(2);
    release.forEach((go) => go());
    expect(await before).toEqual(['load 1']);
    expect(await after).toEqual(['load 2']);
    expect(cache.peek('range', 'a')).toBe('load 2');
  });
});
