import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllableClock } from '../../src/platform/clock.js';
import { openDatabase, type Dialect } from '../../src/platform/db/database.js';
import { call, createPartner, startPbs, T0, TEST_PG_URL, type Harness, type TestDatabase } from '../support/harness.js';
import { createRestaurant, guest, restaurantSettings } from '../support/restaurant.js';
import { eventuallyPasses } from '../support/wait.js';

const DAY = '2031-05-07';

/** Two connections to one database, as two pbs processes would have. */
async function sharedDatabases(dialect: Dialect): Promise<[TestDatabase, TestDatabase, () => Promise<void>]> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-sync-'));
    const file = path.join(dir, 'pbs.sqlite');
    const a = await openDatabase({ sqlitePath: file });
    const b = await openDatabase({ sqlitePath: file });
    const cleanup = async () => {
      await a.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    return [{ ...a, drop: async () => {} }, { ...b, drop: async () => {} }, cleanup];
  }
  const schema = `sync_${randomBytes(4).toString('hex')}`;
  const a = await openDatabase({ databaseUrl: TEST_PG_URL, pgSchema: schema });
  const b = await openDatabase({ databaseUrl: TEST_PG_URL, pgSchema: schema });
  const cleanup = async () => {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(a.db);
    await a.close();
  };
  return [{ ...a, drop: async () => {} }, { ...b, drop: async () => {} }, cleanup];
}

describe.each(['sqlite', 'postgres'] as const)('availability across instances on %s', (dialect) => {
  let writer: Harness;
  let reader: Harness;
  let cleanup: () => Promise<void>;
  let key: string;
  let businessId: string;
  const clock = new ControllableClock({ frozenAtMs: T0 });

  beforeAll(async () => {
    const [a, b, done] = await sharedDatabases(dialect);
    cleanup = done;
    writer = await startPbs(dialect, { database: a, clock });
    reader = await startPbs(dialect, { database: b, clock });
    key = (await createPartner(writer.url, ['reservations'])).apiKey.api_key;
    businessId = (await createRestaurant(writer.url, { ...restaurantSettings, tables: [{ name: 'only', min_party: 1, max_party: 4 }] })).id;
  });
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await reader?.database.close();
    await cleanup?.();
  });

  const openTimes = async (base: string, time = '19:00') => {
    const r = await call(base, 'GET', `/v3/bookings/${businessId}/openings?date=${DAY}&time=${time}&covers=2`, { token: key });
    expect(r.status).toBe(200);
    return (r.body.reservation_times as Array<{ date: string; times: Array<{ time: string }> }>)
      .find((d) => d.date === DAY)!
      .times.map((t) => t.time);
  };
  const searchOpenings = async (base: string) => {
    const r = await call(
      base,
      'GET',
      `/v3/businesses/search?location=San%20Francisco&reservation_date=${DAY}&reservation_time=19:00&reservation_covers=2&matches_party_size_param=false`,
      {
        token: key,
      },
    );
    expect(r.status).toBe(200);
    return (
      (r.body.businesses as Array<{ id: string; data?: { reservation_openings: string[] } }>).find((b) => b.id === businessId)?.data
        ?.reservation_openings ?? []
    );
  };

  it('sees a hold, a reservation and a cancellation made by the other instance', async () => {
    expect(await openTimes(reader.url)).toContain('19:00');
    const held = await call(writer.url, 'POST', `/v3/bookings/${businessId}/holds`, {
      token: key,
      form: { date: DAY, time: '19:00', covers: '2', unique_id: 'sync-guest' },
    });
    expect(held.status).toBe(200);
    // The writer knows at once; the reader once the change reaches it.
    expect(await openTimes(writer.url)).not.toContain('19:00');
    await eventuallyPasses(async () => expect(await openTimes(reader.url)).not.toContain('19:00'));
    await eventuallyPasses(async () => expect(await searchOpenings(reader.url)).not.toContain('19:00'));

    const booked = await call(writer.url, 'POST', `/v3/bookings/${businessId}/reservations`, {
      token: key,
      form: { ...guest, date: DAY, time: '19:00', covers: '2', unique_id: 'sync-guest', hold_id: held.body.hold_id },
    });
    expect(booked.status).toBe(200);
    const canceled = await call(writer.url, 'POST', `/v3/bookings/reservation/${booked.body.reservation_id}/cancel`, {
      token: key,
      json: {},
    });
    expect(canceled.status).toBe(200);
    expect(await openTimes(writer.url)).toContain('19:00');
    await eventuallyPasses(async () => expect(await openTimes(reader.url)).toContain('19:00'));
    await eventuallyPasses(async () => expect(await searchOpenings(reader.url)).toContain('19:00'));
  });

  it('offers a held slot again when the hold lapses, with no write at all', async () => {
    const held = await call(writer.url, 'POST', `/v3/bookings/${businessId}/holds`, {
      token: key,
      form: { date: DAY, time: '20:00', covers: '2', unique_id: 'lapsing' },
    });
    expect(held.status).toBe(200);
    await eventuallyPasses(async () => expect(await openTimes(reader.url, '20:00')).not.toContain('20:00'));
    clock.advance(5 * 60_000);
    expect(await openTimes(reader.url, '20:00')).toContain('20:00');
    expect(await openTimes(writer.url, '20:00')).toContain('20:00');
  });

  it('a booking refused by the database is not shown as taken', async () => {
    const first = await call(writer.url, 'POST', `/v3/bookings/${businessId}/holds`, {
      token: key,
      form: { date: DAY, time: '21:00', covers: '2', unique_id: 'one' },
    });
    expect(first.status).toBe(200);
    // The reader may still offer 21:00 for a moment; its hold is refused by the locked check.
    const second = await call(reader.url, 'POST', `/v3/bookings/${businessId}/holds`, {
      token: key,
      form: { date: DAY, time: '21:00', covers: '2', unique_id: 'two' },
    });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('HOLD_SLOT_NOT_AVAILABLE');
  });
});

describe.each(['sqlite', 'postgres'] as const)('remembered search answers on %s', (dialect) => {
  let h: Harness;
  let key: string;
  let businessId: string;
  // 2031-05-07 19:00 in San Francisco is 2031-05-08T02:00Z; the restaurant needs 60 minutes' notice.
  const seven = Date.parse('2031-05-08T02:00:00Z');

  beforeAll(async () => {
    h = await startPbs(dialect);
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
    businessId = (await createRestaurant(h.url, { ...restaurantSettings, tables: [{ name: 'only', min_party: 1, max_party: 4 }] })).id;
  });
  afterAll(() => h?.close());

  /** Whether a search for 19:00 (±30 minutes) lists the restaurant as having an opening. */
  const listed = async () => {
    const r = await call(
      h.url,
      'GET',
      `/v3/businesses/search?location=San%20Francisco&reservation_date=${DAY}&reservation_time=19:00&reservation_covers=2`,
      { token: key },
    );
    expect(r.status).toBe(200);
    return (r.body.businesses as Array<{ id: string }>).some((b) => b.id === businessId);
  };

  it('follows bookings at once and holds lapsing with the clock', async () => {
    expect(await listed()).toBe(true);
    const held = await call(h.url, 'POST', `/v3/bookings/${businessId}/holds`, {
      token: key,
      form: { date: DAY, time: '19:00', covers: '2', unique_id: 'window' },
    });
    expect(held.status).toBe(200);
    // The one table is taken from 19:00 for 90 minutes: no start between 18:30 and 19:30 fits.
    expect(await listed()).toBe(false);
    h.clock.advance(5 * 60_000);
    expect(await listed()).toBe(true);
  });

  it('drops a restaurant once its openings in the window fall inside the notice period', async () => {
    // Time that passes, rather than a clock that jumps (a jump makes every cache start over).
    let wall = seven - 90 * 60_000; // 17:30: 18:30 onwards can still be booked
    const flowing = await startPbs(dialect, { clock: new ControllableClock({}, () => wall) });
    try {
      const partnerKey = (await createPartner(flowing.url, ['reservations'])).apiKey.api_key;
      const id = (await createRestaurant(flowing.url, restaurantSettings)).id;
      const search = async () => {
        const r = await call(
          flowing.url,
          'GET',
          `/v3/businesses/search?location=San%20Francisco&reservation_date=${DAY}&reservation_time=19:00&reservation_covers=2`,
          {
            token: partnerKey,
          },
        );
        return (r.body.businesses as Array<{ id: string }>).some((b) => b.id === id);
      };
      expect(await search()).toBe(true);
      // Holds on both tables that fit a party of two hide it until they lapse, five minutes on.
      const slot = { date: DAY, time: '19:00', covers: '2' };
      for (const table of ['two', 'four']) {
        const held = await call(flowing.url, 'POST', `/v3/bookings/${id}/holds`, {
          token: partnerKey,
          form: { ...slot, unique_id: `flowing-${table}` },
        });
        expect(held.status).toBe(200);
      }
      expect(await search()).toBe(false);
      wall += 5 * 60_000;
      expect(await search()).toBe(true);
      wall = seven - 29 * 60_000; // 18:31: even 19:30 is less than 60 minutes away
      expect(await search()).toBe(false);
    } finally {
      await flowing.close();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('remembered days on %s', (dialect) => {
  it('stay within PBS_REMEMBERED_DAYS, dropping the oldest restaurants first, with the same answers', async () => {
    const h = await startPbs(dialect, { env: { PBS_REMEMBERED_DAYS: '6' } });
    try {
      const first = await createRestaurant(
        h.url,
        { ...restaurantSettings, tables: [{ name: 'only', min_party: 1, max_party: 4 }] },
        'First Bistro',
      );
      const second = await createRestaurant(h.url, {}, 'Second Bistro');
      const key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
      const openings = async (id: string, date: string) => {
        const r = await call(h.url, 'GET', `/v3/bookings/${id}/openings?date=${date}&time=19:00&covers=2`, { token: key });
        expect(r.status).toBe(200);
        return r.body;
      };
      // Each openings request computes four days (the day before to two days after).
      const before = await openings(first.id, DAY);
      expect(h.pbs.occupancy.daysRemembered).toBe(4);
      await openings(second.id, DAY); // 8 > 6: the first restaurant's days are dropped
      expect(h.pbs.occupancy.daysRemembered).toBeLessThanOrEqual(6);
      await openings(second.id, '2031-05-20');
      expect(h.pbs.occupancy.daysRemembered).toBeLessThanOrEqual(6);
      expect(await openings(first.id, DAY)).toEqual(before);

      // A hold made after its day was dropped and computed again still counts.
      const held = await call(h.url, 'POST', `/v3/bookings/${first.id}/holds`, {
        token: key,
        form: { date: DAY, time: '19:00', covers: '2', unique_id: 'g' },
      });
      expect(held.status).toBe(200);
      await openings(second.id, '2031-05-24');
      const timesOf = (body: { reservation_times: Array<{ date: string; times: Array<{ time: string }> }> }) =>
        body.reservation_times.find((d) => d.date === DAY)!.times.map((t) => t.time);
      expect(timesOf(before)).toContain('19:00');
      expect(timesOf(await openings(first.id, DAY))).not.toContain('19:00');
      expect(h.pbs.occupancy.daysRemembered).toBeLessThanOrEqual(6);
    } finally {
      await h.close();
    }
  });
});
