import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restaurantSettings } from '../support/restaurant.js';
import { ADMIN_TOKEN, admin, call, createPartner, dialects, sampleBusiness } from '../support/harness.js';
import { processTarget, startServerProcess, type ServerProcess } from '../support/process.js';
import { eventually, eventuallyPasses } from '../support/wait.js';

/** A few days ahead on the wall clock (the processes run on it), inside the settings' 30-day horizon. */
const DAY = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

/**
 * Issue 23: the catalogue stays correct across processes. Each process keeps it in memory and
 * loads what changed since the catalogue sequence number it last saw, at most
 * PBS_CATALOG_MAX_STALE_MS (250 ms) after another process committed it: a search that arrives
 * a second after a change, in another process, must see it (docs/catalogue.md).
 */
describe.each(dialects)('the catalogue across two processes on %s', (dialect) => {
  let servers: ServerProcess[] = [];
  let cleanup: () => Promise<void>;
  let key: string;
  const search = (i: number, query: string) => call(servers[i].url, 'GET', `/v3/businesses/search?${query}`, { token: key });
  const names = (r: { body: { businesses?: Array<{ name: string }> } }) => (r.body.businesses ?? []).map((b) => b.name);

  beforeAll(async () => {
    const target = await processTarget(dialect, 'catalogue');
    cleanup = target.cleanup;
    const env = { ...target.env, PBS_ADMIN_TOKEN: ADMIN_TOKEN, PBS_SEED_DEMO: '0', PBS_RATE_LIMIT_PER_SECOND: '100000' };
    servers = [await startServerProcess(env), await startServerProcess(env)];
    key = (await createPartner(servers[0].url, ['reservations'])).apiKey.api_key;
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await cleanup?.();
  });

  // docs/catalogue.md: within about a second on a quiet machine; the test waits for it, not for a time.
  it('a business imported through one process is found by search in the other', async () => {
    const place = 'location=Springfield%2C%20IL';
    // Both processes have looked (and hold an empty catalogue for this place).
    for (const i of [0, 1]) expect((await search(i, place)).body.error.code).toBe('LOCATION_NOT_FOUND');
    const location = { city: 'Springfield', state: 'IL', country: 'US', zip_code: '62701', address1: '1 Capitol Ave' };
    const lines = ['Lincoln Diner', 'Prairie Grill', 'Capitol Pizza'].map((name, n) =>
      sampleBusiness({
        id: `springfield-${dialect}-${n}`,
        name,
        location,
        timezone: 'America/Chicago',
        coordinates: { latitude: 39.8 + n / 100, longitude: -89.65 },
      }),
    );
    const imported = await admin(servers[0].url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson(lines),
      contentType: 'application/x-ndjson',
    });
    expect(imported.status, imported.text).toBe(200);
    await eventuallyPasses(
      async () =>
        expect(names(await search(1, `${place}&sort_by=review_count`)).sort()).toEqual(['Capitol Pizza', 'Lincoln Diner', 'Prairie Grill']),
      100,
    );

    // A change through the other process: renamed, and found by its new name in the first.
    const renamed = await admin(servers[1].url, 'PUT', `/admin/v1/businesses/springfield-${dialect}-0`, {
      json: { ...lines[0], id: undefined, name: 'Lincoln Supper Club' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    await eventuallyPasses(async () => expect(names(await search(0, `${place}&term=supper%20club`))).toEqual(['Lincoln Supper Club']), 100);
    expect(names(await search(0, `${place}&term=diner`))).toEqual([]);

    // Reservation settings imported through one process: the other finds openings.
    const settings = await admin(servers[0].url, 'POST', '/admin/v1/reservation-settings/import', {
      body: ndjson([{ business_id: `springfield-${dialect}-1`, settings: restaurantSettings }]),
      contentType: 'application/x-ndjson',
    });
    expect(settings.status, settings.text).toBe(200);
    const reservable = await eventually(
      () => search(1, `${place}&attributes=reservation&reservation_date=${DAY}&reservation_time=19:00&reservation_covers=2`),
      (r) => names(r).length > 0,
      'openings in the other process',
      100,
    );
    expect(names(reservable)).toEqual(['Prairie Grill']);
    expect(reservable.body.businesses[0].data.reservation_openings.length).toBeGreaterThan(0);
  });
});
