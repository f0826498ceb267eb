import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressMatch, nameSimilarity, phoneDigits } from '../../src/businesses/business-match.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, T0, type Harness } from '../support/harness.js';

const sf = { city: 'San Francisco', state: 'CA', country: 'US' };
const hours = [{ open: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '0800', end: '2200' })) }];

/** Issue 23: Business Match (docs/contract/search.md §2.3) and business details (§2.2), docs/business-match.md. */
describe.each(dialects)('Business Match and business details on %s', (dialect) => {
  let h: Harness;
  let key: string;
  const ids: Record<string, string> = {};
  const match = (query: Record<string, string>, token = key) =>
    call(h.url, 'GET', `/v3/businesses/matches?${new URLSearchParams(query)}`, { token });
  const names = (r: { body: { businesses: Array<{ name: string }> } }) => r.body.businesses.map((b) => b.name);
  const golden = { name: 'Golden Trattoria', address1: '1 Market St', ...sf };

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    // An advertising partner: Business Match is how it finds the ids its programs take.
    key = (await createPartner(h.url, ['advertising'])).apiKey.api_key;
    const add = async (label: string, extra: Record<string, unknown>) => {
      ids[label] = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness(extra) })).body.id;
    };
    await add('golden', {
      name: 'Golden Trattoria',
      location: { ...sf, address1: '1 Market St', zip_code: '94105' },
      phone: '+14155550101',
      coordinates: { latitude: 37.7941, longitude: -122.3951 },
      hours,
      image_url: 'https://img.example/golden.jpg',
    });
    await add('express', {
      name: 'Golden Trattoria Express',
      location: { ...sf, address1: '500 Mission St', zip_code: '94105' },
      phone: '+14155550102',
      coordinates: { latitude: 37.789, longitude: -122.398 },
    });
    await add('sushi', { name: 'Blue Sushi', location: { ...sf, address1: '1 Market St', zip_code: '94105' }, phone: '+14155550103' });
    await add('oakland', {
      name: 'Golden Trattoria',
      location: { city: 'Oakland', state: 'CA', country: 'US', address1: '1 Broadway', zip_code: '94607' },
      phone: '+15105550100',
    });
    await add('toronto', {
      name: 'Café Crème',
      timezone: 'America/Toronto',
      location: { city: 'Toronto', state: 'ON', country: 'CA', address1: '12 Queen St W', zip_code: 'M5H 2M9' },
      phone: '+14165550100',
    });
  });
  afterAll(() => h.close());

  it('finds the business a name and address describe, in the record shape of docs/contract/search.md §2.3', async () => {
    const r = await match(golden);
    expect(r.status, r.text).toBe(200);
    expect(r.body.businesses[0]).toEqual({
      id: ids.golden,
      alias: 'golden-trattoria-san-francisco',
      name: 'Golden Trattoria',
      coordinates: { latitude: 37.7941, longitude: -122.3951 },
      location: expect.objectContaining({ address1: '1 Market St', city: 'San Francisco', state: 'CA', zip_code: '94105', country: 'US' }),
      phone: '+14155550101',
      display_phone: '(415) 555-0101',
    });
    // Another city's business of the same name is not this one.
    expect(r.body.businesses.map((b: { id: string }) => b.id)).not.toContain(ids.oakland);
    // Case, spelling of the street, a typo in the name: the same business.
    expect(
      names(await match({ ...golden, name: 'golden trattoria', address1: '1 Market Street', city: 'san francisco', state: 'ca' }))[0],
    ).toBe('Golden Trattoria');
    expect(names(await match({ ...golden, name: 'Goldn Trattoria' }))[0]).toBe('Golden Trattoria');
    // Accents and another country.
    expect(
      names(await match({ name: 'Cafe Creme', address1: '12 Queen Street West', city: 'Toronto', state: 'ON', country: 'CA' })),
    ).toEqual(['Café Crème']);
  });

  it('strict needs the name and the address or phone to agree, and no other postal code', async () => {
    expect(names(await match({ ...golden, match_threshold: 'strict' }))).toEqual(['Golden Trattoria']);
    expect(names(await match({ ...golden, address1: '99 Elsewhere Ave', match_threshold: 'strict' }))).toEqual([]);
    expect(names(await match({ ...golden, address1: '99 Elsewhere Ave', phone: '(415) 555-0101', match_threshold: 'strict' }))).toEqual([
      'Golden Trattoria',
    ]);
    expect(names(await match({ ...golden, postal_code: '94110', match_threshold: 'strict' }))).toEqual([]);
    expect(names(await match({ ...golden, name: 'Goldn Trattoria', match_threshold: 'strict' }))).toEqual([]);
  });

  it('default takes a close name with one more piece of evidence; none lists every likely one, up to limit', async () => {
    // No address, but the phone: matched; neither: a name alone is not enough.
    expect(names(await match({ ...golden, address1: '99 Elsewhere Ave', phone: '+1 415 555 0101' }))).toEqual(['Golden Trattoria']);
    expect(names(await match({ ...golden, address1: '99 Elsewhere Ave' }))).toEqual([]);
    // An empty address line is allowed: then the name decides.
    expect(names(await match({ ...golden, address1: '' }))).toEqual(['Golden Trattoria', 'Golden Trattoria Express']);
    // Near the given coordinates.
    expect(names(await match({ ...golden, address1: '99 Elsewhere Ave', latitude: '37.7942', longitude: '-122.3952' }))).toEqual([
      'Golden Trattoria',
    ]);
    // A business id the partner already had, as a hint.
    expect(names(await match({ ...golden, name: 'Golden Express', address1: '', yelp_business_id: ids.express }))).toEqual([
      'Golden Trattoria Express',
    ]);
    const none = await match({ ...golden, match_threshold: 'none', limit: '10' });
    expect(names(none)).toEqual(['Golden Trattoria', 'Golden Trattoria Express']);
    expect(names(await match({ ...golden, match_threshold: 'none', limit: '1' }))).toEqual(['Golden Trattoria']);
    expect(names(await match({ ...golden, match_threshold: 'none' })).length).toBeLessThanOrEqual(3);
  });

  it('answers a bad or missing parameter with 400 VALIDATION_ERROR naming it', async () => {
    for (const field of ['name', 'address1', 'city', 'state', 'country']) {
      const query: Record<string, string> = { ...golden };
      delete query[field];
      const r = await match(query);
      expect(r.status, field).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field });
    }
    const bad: Array<[Record<string, string>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ address1: 'x'.repeat(65) }, 'address1'],
      [{ city: '' }, 'city'],
      [{ state: 'CALI' }, 'state'],
      [{ country: 'us' }, 'country'],
      [{ country: 'USA' }, 'country'],
      [{ postal_code: '1234567890123' }, 'postal_code'],
      [{ phone: 'x'.repeat(33) }, 'phone'],
      [{ yelp_business_id: 'short' }, 'yelp_business_id'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '11' }, 'limit'],
      [{ limit: '2.5' }, 'limit'],
      [{ match_threshold: 'loose' }, 'match_threshold'],
      [{ latitude: '91', longitude: '0' }, 'latitude'],
      [{ latitude: '37.7' }, 'longitude'],
    ];
    for (const [extra, field] of bad) {
      const r = await match({ ...golden, ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field });
    }
  });

  it('takes an API key of any partner interface, and no key or no interface is refused', async () => {
    expect((await call(h.url, 'GET', `/v3/businesses/matches?${new URLSearchParams(golden)}`)).status).toBe(401);
    const idle = await createPartner(h.url, [], 'No interfaces');
    const r = await match(golden, idle.apiKey.api_key);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('PARTNER_ENDPOINT_DISABLED');
    const reservations = await createPartner(h.url, ['reservations'], 'Reservations');
    expect((await match(golden, reservations.apiKey.api_key)).status).toBe(200);
  });

  it('details: the public record by id or alias, with hours open now or not and photos; unknown is 404', async () => {
    h.clock.set(T0); // 09:00 in San Francisco: open 08:00–22:00
    const r = await call(h.url, 'GET', `/v3/businesses/${ids.golden}`, { token: key });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      id: ids.golden,
      alias: 'golden-trattoria-san-francisco',
      name: 'Golden Trattoria',
      is_closed: false,
      rating: 4.5,
      review_count: 10,
      categories: [{ alias: 'french', title: 'French' }],
      location: { address1: '1 Market St', display_address: ['1 Market St', 'San Francisco, CA 94105'] },
      phone: '+14155550101',
      photos: ['https://img.example/golden.jpg'],
    });
    expect(r.body.hours[0]).toMatchObject({ hours_type: 'REGULAR', is_open_now: true });
    expect(r.body.hours[0].open).toHaveLength(7);
    expect(r.body).not.toHaveProperty('distance');
    expect(r.body).not.toHaveProperty('timezone');
    const byAlias = await call(h.url, 'GET', '/v3/businesses/golden-trattoria-san-francisco', { token: key });
    expect(byAlias.body.id).toBe(ids.golden);
    const express = await call(h.url, 'GET', `/v3/businesses/${ids.express}`, { token: key });
    expect(express.body).toMatchObject({ hours: [], photos: [] });
    const unknown = await call(h.url, 'GET', '/v3/businesses/no-such-business', { token: key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('BUSINESS_NOT_FOUND');
    // The routes beside it still route: search and engagement are not business ids.
    expect((await call(h.url, 'GET', '/v3/businesses/search?location=San%20Francisco', { token: key })).body.error.code).toBe(
      'PARTNER_ENDPOINT_DISABLED',
    );
  });
});

describe('Business Match rules', () => {
  it('compares names, addresses and phones the way docs/business-match.md says', () => {
    expect(nameSimilarity('Golden Trattoria', 'golden  trattoria!')).toBe(1);
    expect(nameSimilarity('Golden Trattoria', 'The Golden Trattoria SF')).toBe(0.9);
    expect(nameSimilarity('Goldn Trattoria', 'Golden Trattoria')).toBeGreaterThan(0.8);
    expect(nameSimilarity('Blue Sushi', 'Golden Trattoria')).toBeLessThan(0.3);
    expect(addressMatch('1 Market Street', '1 market st')).toBe('exact');
    expect(addressMatch('1 Market St Suite 200', '1 Market St')).toBe('number');
    expect(addressMatch('2 Market St', '1 Market St')).toBe('none');
    expect(addressMatch('', '1 Market St')).toBe('none');
    expect(phoneDigits('+1 (415) 555-0101')).toBe(phoneDigits('4155550101'));
  });
});
