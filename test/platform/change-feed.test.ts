import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foundationMigrations } from '../../src/app.js';
import { ChangeFeed } from '../../src/platform/change-feed.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { openTestDatabase, type TestDatabase } from '../support/harness.js';
import { eventuallyPasses } from '../support/wait.js';

// SQLite's side (data_version) is covered by availability-sync.test.ts.
describe('the change log on postgres', () => {
  let database: TestDatabase;
  let writer: ChangeFeed;
  let reader: ChangeFeed;
  const heardByReader: Array<string | undefined> = [];
  const heardByWriter: Array<string | undefined> = [];

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    await migrateToLatest(database, foundationMigrations);
    writer = new ChangeFeed(database, 10);
    reader = new ChangeFeed(database, 10);
    writer.subscribe('bookings', (key) => heardByWriter.push(key));
    reader.subscribe('bookings', (key) => heardByReader.push(key));
    await writer.start();
    await reader.start();
  });
  afterAll(async () => {
    await writer.close();
    await reader.close();
    await database.drop();
  });

  it('reports other processes’ committed changes once each, and not a process’s own', async () => {
    await database.transact((trx) => writer.publish(trx, 'bookings', 'b1'));
    await eventuallyPasses(() => expect(heardByReader).toContain('b1'));
    await expect(
      database.transact(async (trx) => {
        await writer.publish(trx, 'bookings', 'rolled-back');
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await database.transact((trx) => writer.publish(trx, 'bookings', 'b2'));
    await eventuallyPasses(() => expect(heardByReader).toContain('b2'));
    expect(heardByReader).toEqual(['b1', 'b2']);
    expect(heardByWriter).toEqual([]);
  });

  it('reports a change whose transaction commits after later ones (out of sequence order)', async () => {
    heardByReader.length = 0;
    const slow = await database.db.startTransaction().execute();
    await writer.publish(slow, 'bookings', 'slow'); // takes the lower sequence number
    await database.transact((trx) => writer.publish(trx, 'bookings', 'fast'));
    await eventuallyPasses(() => expect(heardByReader).toContain('fast'));
    // Read again past it (a later change seen), so a reader that kept only the highest number would skip 'slow'.
    await database.transact((trx) => writer.publish(trx, 'bookings', 'marker'));
    await eventuallyPasses(() => expect(heardByReader).toContain('marker'));
    expect(heardByReader).not.toContain('slow');
    await slow.commit().execute();
    await eventuallyPasses(() => expect(heardByReader).toContain('slow'));
    expect(heardByReader.sort()).toEqual(['fast', 'marker', 'slow']);
  });
});
