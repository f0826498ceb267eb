import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

/**
 * What a client generated from Yelp's published OpenAPI document checks of a business, as that
 * document types it: address lines are strings (never null), and details carry `is_claimed`
 * (docs/contract/search.md §2.2). Issue 40 §3.
 */
const location = {
  type: 'object',
  required: ['address1', 'city', 'zip_code', 'country', 'state', 'display_address'],
  properties: {
    address1: { type: 'string' },
    address2: { type: 'string' },
    address3: { type: 'string' },
    city: { type: 'string' },
    zip_code: { type: 'string' },
    country: { type: 'string' },
    state: { type: 'string' },
    display_address: { type: 'array', items: { type: 'string' } },
  },
};
const coordinates = { type: 'object', properties: { latitude: { type: 'number' }, longitude: { type: 'number' } } };
const category = { type: 'object', required: ['alias', 'title'], properties: { alias: { type: 'string' }, title: { type: 'string' } } };
const searchBusiness = {
  type: 'object',
  required: ['id', 'alias', 'name', 'location', 'coordinates', 'phone', 'display_phone'],
  properties: {
    id: { type: 'string' },
    alias: { type: 'string' },
    name: { type: 'string' },
    image_url: { type: 'string' },
    is_closed: { type: 'boolean' },
    url: { type: 'string' },
    review_count: { type: 'integer' },
    categories: { type: 'array', items: category },
    rating: { type: 'number' },
    coordinates,
    transactions: { type: 'array', items: { type: 'string' } },
    price: { type: 'string' },
    location,
    phone: { type: 'string' },
    display_phone: { type: 'string' },
    distance: { type: 'number' },
    attributes: { type: 'object' },
  },
};
const details = {
  type: 'object',
  required: [
    'id',
    'alias',
    'name',
    'image_url',
    'is_claimed',
    'is_closed',
    'url',
    'phone',
    'display_phone',
    'review_count',
    'categories',
    'rating',
    'location',
    'coordinates',
    'photos',
  ],
  properties: {
    ...searchBusiness.properties,
    is_claimed: { type: 'boolean' },
    photos: { type: 'array', items: { type: 'string' } },
    hours: { type: 'array', items: { type: 'object', required: ['open', 'hours_type', 'is_open_now'] } },
  },
};
const ajv = new Ajv({ allErrors: true, strict: false });
const validSearch = ajv.compile({
  type: 'object',
  required: ['businesses', 'total', 'region'],
  properties: { businesses: { type: 'array', items: searchBusiness }, total: { type: 'integer' } },
});
const validMatch = ajv.compile({
  type: 'object',
  required: ['businesses'],
  properties: {
    businesses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'alias', 'name', 'location', 'coordinates', 'phone', 'display_phone'],
        properties: { location },
      },
    },
  },
});
const validDetails = ajv.compile(details);
const problems = (validate: ReturnType<Ajv['compile']>, body: unknown) => (validate(body) ? [] : ajv.errorsText(validate.errors));

describe.each(dialects)("answers that Yelp's published business schema accepts on %s", (dialect) => {
  let h: Harness;
  let key: string;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    key = (await createPartner(h.url, ['reservations', 'advertising'])).apiKey.api_key;
    const add = async (overrides: Record<string, unknown>) =>
      ids.push((await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness(overrides) })).body.id);
    // No address lines beyond the first; null ones, as facts allow an operator to send; a claimed one.
    await add({ name: 'Plain Bistro' });
    await add({
      name: 'Null Lines Bistro',
      location: { address1: null, address2: null, address3: null, city: 'San Francisco', state: 'CA', country: 'US' },
    });
    await add({ name: 'Claimed Bistro', is_claimed: true });
  });
  afterAll(() => h.close());

  const everyWay = async () => {
    const search = await call(h.url, 'GET', '/v3/businesses/search?location=San%20Francisco&limit=50', { token: key });
    expect(search.status, search.text).toBe(200);
    expect(search.body.businesses).toHaveLength(3);
    expect(problems(validSearch, search.body)).toEqual([]);
    const match = await call(
      h.url,
      'GET',
      `/v3/businesses/matches?${new URLSearchParams({ name: 'Plain Bistro', address1: '1 Sample St', city: 'San Francisco', state: 'CA', country: 'US' })}`,
      { token: key },
    );
    expect(match.body.businesses.length, match.text).toBeGreaterThan(0);
    expect(problems(validMatch, match.body)).toEqual([]);
    const shown = [];
    for (const id of ids) {
      const one = await call(h.url, 'GET', `/v3/businesses/${id}`, { token: key });
      expect(problems(validDetails, one.body)).toEqual([]);
      shown.push(one.body);
    }
    return { search: search.body.businesses, details: shown };
  };

  it('sends "" for an address line a business lacks, in search, match and details; details say is_claimed', async () => {
    const { search, details: shown } = await everyWay();
    for (const b of [...search, ...shown]) expect([b.location.address2, b.location.address3]).toEqual(['', '']);
    expect(shown.map((b) => [b.name, b.location.address1, b.is_claimed])).toEqual([
      ['Plain Bistro', '1 Sample St', false],
      ['Null Lines Bistro', '', false],
      ['Claimed Bistro', '1 Sample St', true],
    ]);
  });

  it('also for records stored before, with null address lines and no is_claimed', async () => {
    for (const id of ids) {
      const row = await h.database.db.selectFrom('businesses').select('record').where('id', '=', id).executeTakeFirstOrThrow();
      const record = JSON.parse(row.record);
      delete record.is_claimed;
      record.location = { ...record.location, address2: null, address3: null };
      await h.database.db
        .updateTable('businesses')
        .set({ record: JSON.stringify(record) })
        .where('id', '=', id)
        .execute();
    }
    const { details: shown } = await everyWay();
    expect(shown.map((b) => [b.location.address3, b.is_claimed])).toEqual([
      ['', false],
      ['', false],
      ['', false],
    ]);
  });
});
