import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, T0, type Harness } from '../support/harness.js';
import { hold, restaurantSettings } from '../support/restaurant.js';

const DAY = '2031-05-07';
const sf = { city: 'San Francisco', state: 'CA', country: 'US', zip_code: '94103' };
const to = { city: 'Toronto', state: 'ON', country: 'CA', zip_code: 'M5V 2T6' };

describe.each(dialects)('GET /v3/businesses/search on %s', (dialect) => {
  let h: Harness;
  let key: string;
  const ids: Record<string, string> = {};
  const names = (r: { body: { businesses: Array<{ name: string }> } }) => r.body.businesses.map((b) => b.name);
  const search = (query: string) => call(h.url, 'GET', `/v3/businesses/search?${query}`, { token: key });

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
    const add = async (name: string, extra: Record<string, unknown>) => {
      ids[name] = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name, ...extra }) })).body.id;
    };
    const hours = [{ open: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '1700', end: '2300' })) }];
    await add('Golden Trattoria', {
      location: sf,
      coordinates: { latitude: 37.7749, longitude: -122.4194 },
      categories: [{ alias: 'italian', title: 'Italian' }],
      price: '$$',
      rating: 4.5,
      review_count: 300,
      hours,
      attributes: { outdoor_seating: true },
    });
    await add('Blue Sushi', {
      location: sf,
      coordinates: { latitude: 37.8, longitude: -122.41 },
      categories: [{ alias: 'sushi', title: 'Sushi Bars' }],
      price: '$$$',
      rating: 5,
      review_count: 40,
      hours,
    });
    await add('Ember Pizza', {
      location: { ...sf, zip_code: '94110' },
      coordinates: { latitude: 37.75, longitude: -122.42 },
      categories: [{ alias: 'pizza', title: 'Pizza' }],
      price: '$',
      rating: 3.5,
      review_count: 900,
    });
    await add('Brand New Place', { location: sf, coordinates: { latitude: 37.77, longitude: -122.42 }, review_count: 0 });
    await add('Maple Bistro', {
      location: to,
      timezone: 'America/Toronto',
      coordinates: { latitude: 43.65, longitude: -79.38 },
      categories: [{ alias: 'french', title: 'French' }],
      rating: 4,
      review_count: 50,
    });
    for (const name of ['Golden Trattoria', 'Blue Sushi']) {
      await admin(h.url, 'PUT', `/admin/v1/businesses/${ids[name]}/reservation-settings`, {
        json: { ...restaurantSettings, tables: [{ name: 'only', min_party: 1, max_party: 4 }] },
      });
    }
  });
  afterAll(() => h.close());

  it('finds the businesses of a city, in the public record shape', async () => {
    const r = await search('location=San%20Francisco');
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3); // the business without reviews is not returned
    expect(names(r).sort()).toEqual(['Blue Sushi', 'Ember Pizza', 'Golden Trattoria']);
    expect(r.body.region.center.latitude).toBeCloseTo(37.77, 1);
    const b = r.body.businesses.find((x: { name: string }) => x.name === 'Golden Trattoria');
    expect(b).toMatchObject({
      id: ids['Golden Trattoria'],
      alias: 'golden-trattoria-san-francisco',
      is_closed: false,
      review_count: 300,
      rating: 4.5,
      price: '$$',
      categories: [{ alias: 'italian', title: 'Italian' }],
      coordinates: { latitude: 37.7749, longitude: -122.4194 },
      location: { city: 'San Francisco', display_address: expect.any(Array) },
      phone: '+14155550100',
      display_phone: '(415) 555-0100',
      distance: expect.any(Number),
      attributes: { outdoor_seating: true },
    });
    expect(b).not.toHaveProperty('data');
    expect(b).not.toHaveProperty('timezone');
  });

  it('resolves postal codes, "city, state" and addresses; unknown places are LOCATION_NOT_FOUND', async () => {
    expect(names(await search('location=94110'))).toEqual(['Ember Pizza']);
    expect(names(await search('location=Toronto,%20ON'))).toEqual(['Maple Bistro']);
    expect((await search('location=1%20Market%20St%2C%20San%20Francisco%2C%20CA')).body.total).toBe(3);
    const unknown = await search('location=Atlantis');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('LOCATION_NOT_FOUND');
    const none = await search('term=pizza');
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('searches around coordinates within a radius', async () => {
    const near = await search('latitude=37.7749&longitude=-122.4194&radius=1000&sort_by=distance');
    expect(names(near)).toEqual(['Golden Trattoria']);
    expect(near.body.businesses[0].distance).toBeLessThan(1);
    expect((await search('latitude=37.7749&longitude=-122.4194&radius=5000')).body.total).toBe(3);
    expect((await search('latitude=37.7749&longitude=-122.4194&radius=40001')).status).toBe(400);
  });

  it('filters by term, categories (OR), price (OR) and attributes (AND), accepting arrays both ways', async () => {
    expect(names(await search('location=San%20Francisco&term=sushi'))).toEqual(['Blue Sushi']);
    expect(names(await search('location=San%20Francisco&term=italian'))).toEqual(['Golden Trattoria']);
    expect(names(await search('location=San%20Francisco&categories=pizza,sushi&sort_by=rating'))).toEqual(['Blue Sushi', 'Ember Pizza']);
    expect(names(await search('location=San%20Francisco&categories=pizza&categories=sushi&sort_by=rating'))).toEqual([
      'Blue Sushi',
      'Ember Pizza',
    ]);
    expect(names(await search('location=San%20Francisco&price=1,2&sort_by=review_count'))).toEqual(['Ember Pizza', 'Golden Trattoria']);
    expect(names(await search('location=San%20Francisco&attributes=reservation&sort_by=rating'))).toEqual([
      'Blue Sushi',
      'Golden Trattoria',
    ]);
    expect(names(await search('location=San%20Francisco&attribute=reservation,outdoor_seating'))).toEqual(['Golden Trattoria']);
  });

  it('matches a category’s ancestors: every Italian, sushi or pizza place is a restaurant', async () => {
    const all = ['Blue Sushi', 'Ember Pizza', 'Golden Trattoria'];
    expect(names(await search('location=San%20Francisco&categories=restaurants&sort_by=rating')).sort()).toEqual(all);
    expect(names(await search('location=San%20Francisco&term=restaurants')).sort()).toEqual(all);
    expect(names(await search('location=San%20Francisco&term=restaurant')).sort()).toEqual(all);
    expect(names(await search('location=San%20Francisco&categories=nightlife'))).toEqual([]);
  });

  it('sorts by rating, review_count and distance, and pages with limit and offset', async () => {
    expect(names(await search('location=San%20Francisco&sort_by=rating'))).toEqual(['Blue Sushi', 'Golden Trattoria', 'Ember Pizza']);
    expect(names(await search('location=San%20Francisco&sort_by=review_count'))).toEqual(['Ember Pizza', 'Golden Trattoria', 'Blue Sushi']);
    // A named location has no radius: distances are worked out only for ordering and the page.
    for (const sort of ['distance', 'best_match', 'rating']) {
      const all = (await search(`location=San%20Francisco&sort_by=${sort}`)).body.businesses as Array<{ distance: number }>;
      expect(all).toHaveLength(3);
      for (const b of all) expect(Number.isFinite(b.distance)).toBe(true);
      if (sort === 'distance') expect(all.map((b) => b.distance)).toEqual(all.map((b) => b.distance).sort((x, y) => x - y));
    }
    const page = await search('location=San%20Francisco&sort_by=rating&limit=1&offset=1');
    expect(page.body.total).toBe(3);
    expect(names(page)).toEqual(['Golden Trattoria']);
  });

  it('filters by open_now and open_at in each business’s time zone', async () => {
    // T0 is 09:00 in San Francisco: nobody is open; 18:00 local on DAY both hour-keeping places are.
    expect((await search('location=San%20Francisco&open_now=true')).body.total).toBe(0);
    const at = Date.parse('2031-05-08T01:00:00Z') / 1000;
    expect(names(await search(`location=San%20Francisco&open_at=${at}&sort_by=rating`))).toEqual(['Blue Sushi', 'Golden Trattoria']);
    expect((await search(`location=San%20Francisco&open_now=true&open_at=${at}`)).status).toBe(400);
  });

  it('answers bad parameters with VALIDATION_ERROR', async () => {
    for (const q of [
      'limit=51',
      'limit=50&offset=200',
      'sort_by=cheapest',
      'locale=xx',
      'price=5',
      'latitude=91&longitude=0',
      'open_now=maybe',
    ]) {
      const r = await search(`location=San%20Francisco&${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await search('location=San%20Francisco&locale=fr_CA')).status).toBe(200);
  });

  describe('reservation extension', () => {
    const reservationQuery = (extra = '') =>
      `location=San%20Francisco&reservation_date=${DAY}&reservation_time=19:00&reservation_covers=2${extra}`;

    it('adds data.reservation_openings within ±30 minutes and drops restaurants without an opening', async () => {
      h.clock.set(T0);
      const r = await search(reservationQuery('&sort_by=rating'));
      expect(r.status).toBe(200);
      expect(names(r)).toEqual(['Blue Sushi', 'Golden Trattoria']);
      for (const b of r.body.businesses) expect(b.data.reservation_openings).toEqual(['18:30', '18:45', '19:00', '19:15', '19:30']);

      // Golden Trattoria's only table is taken from 19:00: nothing within ±30 minutes fits a 90-minute turn.
      expect((await hold(h.url, key, ids['Golden Trattoria'], { date: DAY, time: '19:00', covers: '2', unique_id: 'x' })).status).toBe(200);
      const after = await search(reservationQuery('&sort_by=rating'));
      expect(names(after)).toEqual(['Blue Sushi']);

      const all = await search(reservationQuery('&matches_party_size_param=false&sort_by=rating'));
      expect(names(all)).toEqual(['Blue Sushi', 'Golden Trattoria', 'Ember Pizza']);
      expect(all.body.businesses.find((b: { name: string }) => b.name === 'Golden Trattoria').data.reservation_openings).toEqual([]);
      expect(all.body.businesses.find((b: { name: string }) => b.name === 'Ember Pizza').data.reservation_openings).toEqual([]);
    });

    it('answers the reservation validation errors', async () => {
      const code = async (q: string) => (await search(`location=San%20Francisco&${q}`)).body.error.code;
      expect(await code(`reservation_date=07-05-2031&reservation_time=19:00&reservation_covers=2`)).toBe('DATE_TIME_VALIDATION_ERROR');
      expect(await code(`reservation_date=${DAY}&reservation_time=1900&reservation_covers=2`)).toBe('DATE_TIME_VALIDATION_ERROR');
      expect(await code(`reservation_date=${DAY}&reservation_time=19:00&reservation_covers=0`)).toBe('TOO_SMALL_VALIDATION_ERROR');
      expect(await code(`reservation_date=${DAY}&reservation_time=19:00&reservation_covers=11`)).toBe('TOO_LARGE_VALIDATION_ERROR');
      expect(await code(`reservation_date=${DAY}&reservation_time=19:00`)).toBe('VALIDATION_ERROR');
    });
  });

  it('finds a term of several words within the place named, not in other places, and sees a change made between searches', async () => {
    const wineBarOf = (name: string, location: object, coordinates: object) =>
      sampleBusiness({ name, location, coordinates, categories: [{ alias: 'wine_bars', title: 'Wine Bars' }] });
    const wineBar = (name: string, location: object, coordinates: object) =>
      admin(h.url, 'POST', '/admin/v1/businesses', { json: wineBarOf(name, location, coordinates) });
    await wineBar('Cellar Wine Bar', to, { latitude: 43.651, longitude: -79.381 });
    const first = await wineBar('Harbor Wine Bar', sf, { latitude: 37.776, longitude: -122.418 });
    expect(names(await search('location=San%20Francisco&term=wine%20bar'))).toEqual(['Harbor Wine Bar']);
    expect(names(await search('location=Toronto&term=wine%20bar'))).toEqual(['Cellar Wine Bar']);
    // A second one in San Francisco, then the first moved to Toronto: each search sees the catalogue as it is now.
    await wineBar('Mission Wine Bar', sf, { latitude: 37.76, longitude: -122.42 });
    expect(names(await search('location=San%20Francisco&term=wine%20bar&sort_by=distance'))).toEqual([
      'Harbor Wine Bar',
      'Mission Wine Bar',
    ]);
    const moved = await admin(h.url, 'PUT', `/admin/v1/businesses/${first.body.id}`, {
      json: wineBarOf('Harbor Wine Bar', to, { latitude: 43.652, longitude: -79.382 }),
    });
    expect(moved.status, moved.text).toBe(200);
    expect(names(await search('location=San%20Francisco&term=wine%20bar'))).toEqual(['Mission Wine Bar']);
    expect(names(await search('location=Toronto&term=wine%20bar&sort_by=distance'))).toEqual(['Cellar Wine Bar', 'Harbor Wine Bar']);
  });
});
