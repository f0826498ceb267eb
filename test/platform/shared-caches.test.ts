import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foundationMigrations } from '../../src/app.js';
import { BusinessService } from '../../src/businesses/business-service.js';
import { EngagementService } from '../../src/engagement/engagement-service.js';
import { engagementMigration } from '../../src/engagement/engagement-tables.js';
import { PartnerService } from '../../src/partners/partner-service.js';
import { BatchLoader } from '../../src/platform/batch-loader.js';
import { ChangeFeed } from '../../src/platform/change-feed.js';
import { ControllableClock } from '../../src/platform/clock.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { TaskRunner } from '../../src/platform/tasks/task-runner.js';
import { dialects, openTestDatabase, sampleBusiness, T0, type TestDatabase } from '../support/harness.js';
import { TEST_DEADLINE_MS } from '../support/wait.js';

describe('batch loader', () => {
  it('loads each key once however many callers ask at the same time, in one batch per arrival', async () => {
    const loader = new BatchLoader<string>();
    const batches: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = (keys: string[]) =>
      loader.load(
        keys,
        (k) => k,
        async (fresh) => {
          batches.push(fresh);
          await gate;
          return fresh.map((k) => k.toUpperCase());
        },
      );
    const first = load(['a', 'b', 'c']);
    const second = load(['b', 'c', 'd']);
    const third = load(['a', 'd']);
    release();
    expect(await first).toEqual(['A', 'B', 'C']);
    expect(await second).toEqual(['B', 'C', 'D']);
    expect(await third).toEqual(['A', 'D']);
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
    // Settled keys load again.
    expect(await load(['a'])).toEqual(['A']);
    expect(batches).toHaveLength(3);
  });

  it('hands a failed load to every caller waiting on it, and loads again afterwards', async () => {
    const loader = new BatchLoader<number>();
    let fail = true;
    const load = () =>
      loader.load(
        ['k'],
        (k) => k,
        async () => {
          await new Promise((r) => setTimeout(r, 5));
          if (fail) throw new Error('database went away');
          return [1];
        },
      );
    const results = await Promise.allSettled([load(), load()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await load()).toEqual([1]);
  });

  it('starts a forgotten key afresh, and the earlier load ending does not drop the new one', async () => {
    const loader = new BatchLoader<string>();
    const gates: Array<() => void> = [];
    let loads = 0;
    const load = () =>
      loader.loadOne('job', async () => {
        const n = ++loads;
        await new Promise<void>((r) => gates.push(r));
        return `read ${n}`;
      });
    const before = load();
    const joined = load();
    loader.forget('job');
    const after = load();
    gates[0]();
    expect(await before).toBe('read 1');
    expect(await joined).toBe('read 1');
    // The first load has ended; a caller now still joins the second, under way.
    const late = load();
    expect(loads).toBe(2);
    gates[1]();
    expect(await after).toBe('read 2');
    expect(await late).toBe('read 2');
  });
});

describe.each(dialects)('link and engagement caches on %s', (dialect) => {
  let database: TestDatabase;
  const clock = new ControllableClock({ frozenAtMs: T0 });
  const feeds: ChangeFeed[] = [];

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    await migrateToLatest(database, [...foundationMigrations, engagementMigration]);
  });
  afterAll(async () => {
    for (const feed of feeds) await feed.close();
    await database.drop();
  });

  /** A process's view: its own change feed, business directory and partner service (links kept a minute). */
  const process = async () => {
    const feed = new ChangeFeed(database, 10);
    feeds.push(feed);
    await feed.start();
    const businesses = new BusinessService(database, clock);
    return { feed, businesses, partners: new PartnerService(database, clock, businesses, () => {}, 2000, feed) };
  };

  it('keeps confirmed links until a link changes: here at once, in another process through the change feed', async () => {
    const here = await process();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await here.businesses.upsert(sampleBusiness({ name: `Linked ${i}` }))).business.id);
    const partner = await here.partners.create({ name: 'Cache partner', interfaces: ['engagement'] });
    for (const id of ids) await here.partners.link(partner.id, id);
    expect((await here.partners.check(partner.id, ids)).unlinked).toEqual([]);

    await here.partners.unlink(partner.id, ids[3]);
    expect((await here.partners.check(partner.id, ids)).unlinked).toEqual([ids[3]]);

    if (dialect === 'postgres') {
      // Another process on the same database: it has the links confirmed, then hears of an unlink.
      const there = await process();
      await there.partners.link(partner.id, ids[3]);
      expect((await there.partners.check(partner.id, ids)).unlinked).toEqual([]);
      expect((await here.partners.check(partner.id, ids)).unlinked).toEqual([]);
      await here.partners.unlink(partner.id, ids[7]);
      await expect
        .poll(async () => (await there.partners.check(partner.id, ids)).unlinked, { timeout: TEST_DEADLINE_MS })
        .toEqual([ids[7]]);
    }
  });

  it('answers engagement from kept parts until a week is scored again, also in another process', async () => {
    const here = await process();
    const tasks = new TaskRunner(database, clock, { pollMs: 1000, batchSize: 10, leaseMs: 60_000 });
    const business = (await here.businesses.upsert(sampleBusiness({ name: 'Scored' }))).business.id;
    const other = (await here.businesses.upsert(sampleBusiness({ name: 'Scored too' }))).business.id;
    const writer = new EngagementService(database, clock, tasks, here.businesses, here.feed);
    await writer.importJsonLines(
      [
        `{"business_id":"${business}","week":"2031-04-28","page_views":1}`,
        `{"business_id":"${other}","week":"2031-04-28","page_views":5}`,
      ].join('\n'),
    );
    await writer.scoreWeek('2031-04-28');
    const reader = dialect === 'postgres' ? new EngagementService(database, clock, tasks, here.businesses, (await process()).feed) : writer;
    const level = async () => JSON.parse((await reader.metrics([business], {})).toString()).data[0].metrics[0]?.engagement_metric;
    expect(await level()).toBe(1);
    await writer.importJsonLines(`{"business_id":"${business}","week":"2031-04-28","page_views":1000}`);
    expect(await level()).toBe(1); // loaded, not yet scored: the kept answer stands
    await writer.scoreWeek('2031-04-28');
    await expect.poll(level, { timeout: TEST_DEADLINE_MS }).toBe(11);
  });
});
