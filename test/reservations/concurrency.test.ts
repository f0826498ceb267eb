import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, startPbs, T0, type Harness } from '../support/harness.js';
import { startProcessPair } from '../support/process.js';
import { guest, restaurantSettings } from '../support/restaurant.js';
import { eventually } from '../support/wait.js';

const DAY = '2031-05-07';
const HOLDS = 200;
const RACERS = 100;

interface Cluster {
  /** Base URLs of the pbs servers sharing one database. */
  urls: string[];
  setClock(ms: number): Promise<void>;
  countActiveReservations(businessId: string): Promise<number>;
  close(): Promise<void>;
}

/** SQLite: one pbs in this process (one writer by design). */
async function sqliteCluster(): Promise<Cluster> {
  const h: Harness = await startPbs('sqlite', { env: { PBS_RATE_LIMIT_PER_SECOND: '1000000' } });
  return {
    urls: [h.url],
    setClock: async (ms) => h.clock.set(ms),
    countActiveReservations: async (id) =>
      (await h.database.db.selectFrom('reservations').select('id').where('business_id', '=', id).where('status', '=', 'active').execute())
        .length,
    close: () => h.close(),
  };
}

/** PostgreSQL: two real pbs processes on one database (its own schema), sharing the sandbox clock. */
async function postgresCluster(): Promise<Cluster> {
  const pair = await startProcessPair('c', { PBS_CLOCK_SYNC_MS: '50', PBS_AUTH_CACHE_MS: '0' });
  const [first, second] = pair.servers;
  return {
    urls: pair.servers.map((s) => s.url),
    async setClock(ms) {
      await admin(first.url, 'PUT', '/admin/v1/clock', { json: { time: new Date(ms).toISOString(), frozen: true } });
      // Wait until the other process has read the shared clock.
      await eventually(
        async () => Date.parse((await admin(second.url, 'GET', '/admin/v1/clock')).body.now),
        (now) => now === ms,
        'the second process to see the clock move',
        25,
      );
    },
    countActiveReservations: async (id) =>
      (
        await pair.pg.database.db
          .selectFrom('reservations')
          .select('id')
          .where('business_id', '=', id)
          .where('status', '=', 'active')
          .execute()
      ).length,
    close: () => pair.close(),
  };
}

describe.each([
  ['sqlite (one process)', sqliteCluster],
  ['postgres (two processes)', postgresCluster],
] as const)('no double booking on %s', (_name, makeCluster) => {
  let cluster: Cluster;
  let key: string;

  beforeAll(async () => {
    cluster = await makeCluster();
    await cluster.setClock(T0);
    key = (await createPartner(cluster.urls[0], ['reservations'])).apiKey.api_key;
  });
  afterAll(() => cluster?.close());

  /** A restaurant with a single table, so every party of 2 at one time competes for it. */
  const oneTableRestaurant = async (name: string) => {
    const base = cluster.urls[0];
    const business = (
      await admin(base, 'POST', '/admin/v1/businesses', {
        json: { name, location: { city: 'San Francisco', state: 'CA', country: 'US' }, timezone: 'America/Los_Angeles' },
      })
    ).body;
    const r = await admin(base, 'PUT', `/admin/v1/businesses/${business.id}/reservation-settings`, {
      json: { ...restaurantSettings, tables: [{ name: 'last', min_party: 1, max_party: 4 }] },
    });
    expect(r.status).toBe(200);
    // Every process sees the new restaurant before the race (another process's change shows within
    // PBS_CATALOG_MAX_STALE_MS); otherwise a racer is refused DOES_NOT_TAKE_RESERVATIONS, not the slot.
    for (const url of cluster.urls) {
      await eventually(
        async () => (await call(url, 'GET', `/v3/bookings/${business.id}/openings?date=${DAY}&time=19:00&covers=2`, { token: key })).status,
        (status) => status === 200,
        'every process to know the new restaurant',
        25,
      );
    }
    return business.id as string;
  };

  const holdAt = (i: number, businessId: string, uniqueId: string) =>
    call(cluster.urls[i % cluster.urls.length], 'POST', `/v3/bookings/${businessId}/holds`, {
      token: key,
      form: { date: DAY, time: '19:00', covers: '2', unique_id: uniqueId },
    });

  it(`gives the last table to exactly one of ${HOLDS} concurrent holds`, async () => {
    const businessId = await oneTableRestaurant('Last Table');
    const results = await Promise.all(Array.from({ length: HOLDS }, (_, i) => holdAt(i, businessId, `guest-${i}`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(HOLDS - 1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('HOLD_SLOT_NOT_AVAILABLE');
  });

  it('lets exactly one racer book a slot freed by an expiring hold', async () => {
    const businessId = await oneTableRestaurant('Freed Table');
    const first = await holdAt(0, businessId, 'early-bird');
    expect(first.status).toBe(200);
    await cluster.setClock(T0 + 5 * 60_000); // the hold expires

    const lateReservation = call(cluster.urls[1 % cluster.urls.length], 'POST', `/v3/bookings/${businessId}/reservations`, {
      token: key,
      form: { ...guest, date: DAY, time: '19:00', covers: '2', unique_id: 'early-bird', hold_id: first.body.hold_id },
    });
    const racers = Array.from({ length: RACERS }, async (_, i) => {
      const uniqueId = `racer-${i}`;
      const held = await holdAt(i, businessId, uniqueId);
      if (held.status !== 200) return held.status;
      const booked = await call(cluster.urls[(i + 1) % cluster.urls.length], 'POST', `/v3/bookings/${businessId}/reservations`, {
        token: key,
        form: { ...guest, date: DAY, time: '19:00', covers: '2', unique_id: uniqueId, hold_id: held.body.hold_id },
      });
      return booked.status;
    });
    const [late, ...outcomes] = await Promise.all([lateReservation, ...racers]);
    expect(late.status).toBe(404);
    expect(late.body.error.code).toBe('HOLD_NOT_FOUND');
    expect(outcomes.filter((s) => s === 200)).toHaveLength(1);
    expect(outcomes.filter((s) => s !== 200).every((s) => s === 409)).toBe(true);
    expect(await cluster.countActiveReservations(businessId)).toBe(1);
  });
});
