import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLineBatches } from '../../src/platform/json-lines.js';
import { restaurantSettings } from '../support/restaurant.js';
import { ADMIN_TOKEN, admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

/** Posts `chunks` as a chunked body, each written on its own, as a client streaming a large file does. */
function postChunked(base: string, path: string, chunks: Array<string | Buffer>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${path}`,
      { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' } },
      (response) => {
        let text = '';
        response.on('data', (d) => (text += d));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

/** Issue 23: imports streamed (never held whole), all or nothing (docs/catalogue.md "Imports"). */
describe.each(dialects)('streamed catalogue imports on %s', (dialect) => {
  let h: Harness;
  const business = (n: number, extra: Record<string, unknown> = {}) =>
    sampleBusiness({ id: `imported-${dialect}-${n}`, name: `Imported ${n}`, ...extra });
  const count = async () => (await admin(h.url, 'GET', '/admin/v1/businesses?limit=1')).body.total as number;
  const staged = async () => {
    const db = h.pbs.ctx.database.db;
    const lines = await db
      .selectFrom('business_import_lines')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const settings = await db
      .selectFrom('settings_import_lines')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(lines.n) + Number(settings.n);
  };

  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(() => h.close());

  it('takes thousands of lines in many batches, then all of them at once', async () => {
    const before = await count();
    const lines = Array.from({ length: 5_000 }, (_, n) => business(n));
    const r = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: ndjson(lines), contentType: 'application/x-ndjson' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      imported: 5_000,
      created: 5_000,
      updated: 0,
      not_searchable: { count: 0, no_reviews: 0, closed: 0, no_coordinates: 0 },
    });
    expect(await count()).toBe(before + 5_000);
    // Again, changed: every one replaced, none created.
    const again = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson(lines.map((b) => ({ ...b, rating: 3 }))),
      contentType: 'application/x-ndjson',
    });
    expect(again.body).toEqual({
      imported: 5_000,
      created: 0,
      updated: 5_000,
      not_searchable: { count: 0, no_reviews: 0, closed: 0, no_coordinates: 0 },
    });
    expect((await admin(h.url, 'GET', `/admin/v1/businesses/imported-${dialect}-4999`)).body.rating).toBe(3);
    expect(await staged()).toBe(0);
  });

  it('a bad line anywhere, even after batches were staged, leaves the catalogue as it was', async () => {
    const before = await count();
    const lines = Array.from({ length: 4_500 }, (_, n) => JSON.stringify(business(10_000 + n)));
    for (const [bad, code, field] of [
      ['{"name": "no location"}', 'VALIDATION_ERROR', undefined],
      ['{not json', 'VALIDATION_ERROR', undefined],
      [JSON.stringify(business(10_000)), 'VALIDATION_ERROR', 'id'],
    ] as const) {
      const body = [...lines, bad, JSON.stringify(business(20_000))].join('\n');
      const r = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body, contentType: 'application/x-ndjson' });
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.description).toContain('line 4501');
      if (field) expect(r.body.error.field).toBe(field);
      expect(await count()).toBe(before);
      expect(await staged()).toBe(0);
    }
    const empty = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: '\n\n', contentType: 'application/x-ndjson' });
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('gives a taken alias a free one, and refuses an explicit alias that is taken', async () => {
    const owner = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Twin Diner' }) })).body;
    const r = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson([
        sampleBusiness({ id: `twin-${dialect}-a`, name: 'Twin Diner' }),
        sampleBusiness({ id: `twin-${dialect}-b`, name: 'Twin Diner' }),
      ]),
      contentType: 'application/x-ndjson',
    });
    expect(r.status, r.text).toBe(200);
    const aliases = await Promise.all(
      ['a', 'b'].map(async (x) => (await admin(h.url, 'GET', `/admin/v1/businesses/twin-${dialect}-${x}`)).body.alias),
    );
    expect(new Set([owner.alias, ...aliases]).size).toBe(3);
    expect(aliases).toEqual([`${owner.alias}-2`, `${owner.alias}-3`]);
    const taken = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson([sampleBusiness({ id: `twin-${dialect}-c`, name: 'Other', alias: owner.alias })]),
      contentType: 'application/x-ndjson',
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('CONFLICT');
  });

  it('reads a body that arrives in pieces, a character split between two of them', async () => {
    const line = JSON.stringify(business(30_000, { name: 'Crème Brûlée Café' }));
    const bytes = Buffer.from(`${line}\n${JSON.stringify(business(30_001))}\n`);
    const cut = bytes.indexOf(Buffer.from('è')) + 1; // inside the two bytes of è
    const r = await postChunked(h.url, '/admin/v1/businesses/import', [
      bytes.subarray(0, cut),
      bytes.subarray(cut, cut + 7),
      bytes.subarray(cut + 7),
    ]);
    expect(r.status).toBe(200);
    expect((await admin(h.url, 'GET', `/admin/v1/businesses/imported-${dialect}-30000`)).body.name).toBe('Crème Brûlée Café');
  });

  it('imports reservation settings all or nothing, and a second import replaces the tables', async () => {
    const ids = [40_000, 40_001].map((n) => `imported-${dialect}-${n}`);
    await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson([business(40_000), business(40_001)]),
      contentType: 'application/x-ndjson',
    });
    const good = ids.map((id) => ({ business_id: id, settings: restaurantSettings }));
    for (const bad of [
      [...good, { business_id: 'no-such-business', settings: restaurantSettings }],
      [...good, { business_id: ids[0], settings: restaurantSettings }],
      [...good, { business_id: ids[0], settings: { ...restaurantSettings, tables: 'none' } }],
    ]) {
      const r = await admin(h.url, 'POST', '/admin/v1/reservation-settings/import', {
        body: ndjson(bad),
        contentType: 'application/x-ndjson',
      });
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect((await admin(h.url, 'GET', `/admin/v1/businesses/${ids[0]}/reservation-settings`)).body.error.code).toBe(
        'DOES_NOT_TAKE_RESERVATIONS',
      );
    }
    expect(await staged()).toBe(0);
    const r = await admin(h.url, 'POST', '/admin/v1/reservation-settings/import', {
      body: ndjson(good),
      contentType: 'application/x-ndjson',
    });
    expect(r.body).toEqual({ imported: 2 });
    const smaller = { ...restaurantSettings, tables: [{ name: 'two', min_party: 1, max_party: 3 }] };
    await admin(h.url, 'POST', '/admin/v1/reservation-settings/import', {
      body: ndjson([{ business_id: ids[0], settings: smaller }]),
      contentType: 'application/x-ndjson',
    });
    const tables = await h.pbs.ctx.database.db
      .selectFrom('restaurant_tables')
      .select(['name', 'max_party', 'active'])
      .where('business_id', '=', ids[0])
      .orderBy('name')
      .execute();
    expect(tables.map((t) => [t.name, t.max_party, Number(t.active)])).toEqual([
      ['eight', 8, 0],
      ['four', 4, 0],
      ['two', 3, 1],
    ]);
    expect((await admin(h.url, 'GET', `/admin/v1/businesses/${ids[1]}/reservation-settings`)).body.tables).toHaveLength(3);
  });
});

describe('reading JSON lines as they arrive', () => {
  it('cuts lines across chunks, counts blank lines in the numbering and refuses a line too long', async () => {
    const chunks = ['{"a":1}\n\n{"b"', ':2}\r\n', '{"c":3}'];
    const batches = [];
    for await (const batch of jsonLineBatches(chunks, { maxLines: 10, batchSize: 2 })) batches.push(batch.map((l) => [l.where, l.value]));
    expect(batches).toEqual([
      [
        ['line 1', { a: 1 }],
        ['line 3', { b: 2 }],
      ],
      [['line 4', { c: 3 }]],
    ]);
    const tooMany = async () => {
      for await (const _ of jsonLineBatches('{}\n{}\n{}', { maxLines: 2, batchSize: 10 }));
    };
    await expect(tooMany()).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const tooLong = async () => {
      for await (const _ of jsonLineBatches(['{"x":"', 'y'.repeat(1024 * 1024 + 10)], { maxLines: 2, batchSize: 10 }));
    };
    await expect(tooLong()).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

/** Issue 40 §6: imports that say what will not be searchable, name an unknown field, and take CSV. */
describe.each(dialects)('business imports that say what they did on %s', (dialect) => {
  let h: Harness;
  let key: string;
  const total = async () =>
    (await call(h.url, 'GET', '/v3/businesses/search?location=San%20Francisco&limit=1', { token: key })).body.total as number;
  const count = async () => (await admin(h.url, 'GET', '/admin/v1/businesses?limit=1')).body.total as number;
  const importCsv = (body: string) => admin(h.url, 'POST', '/admin/v1/businesses/import', { body, contentType: 'text/csv' });

  beforeAll(async () => {
    h = await startPbs(dialect);
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
    // Search knows San Francisco once a business there is listed.
    await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ id: 'already-listed' }) });
  });
  afterAll(() => h.close());

  it('counts the businesses search will not list, and says why', async () => {
    const before = await total();
    const lines = [
      ...Array.from({ length: 3 }, (_, n) => sampleBusiness({ id: `unreviewed-${n}`, name: `Unreviewed ${n}`, review_count: 0 })),
      sampleBusiness({ id: 'closed-0', name: 'Closed For Good', is_closed: true, review_count: 0 }),
      sampleBusiness({ id: 'unplaced-0', name: 'Unplaced', coordinates: { latitude: null, longitude: null } }),
      sampleBusiness({ id: 'listed-0', name: 'Listed' }),
    ];
    const r = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: ndjson(lines), contentType: 'application/x-ndjson' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      imported: 6,
      not_searchable: { count: 5, no_reviews: 4, closed: 1, no_coordinates: 1 },
      notice:
        '5 of the 6 imported businesses will not appear in search: 4 have no reviews (review_count 0: search lists only reviewed businesses, as the original does); 1 is closed for good (is_closed); 1 has no coordinates, so no place on the map. Calls by id (details, Business Match, bookings) still find them (docs/search.md).',
    });
    expect(await total()).toBe(before + 1); // only "Listed"
  });

  it('names the field a record has that a business has not, in an import and in a single write', async () => {
    for (const [extra, field] of [
      [{ rank: 3 }, 'rank'],
      [{ location: { adress1: '1 Main St', city: 'San Francisco', state: 'CA', country: 'US' } }, 'location.adress1'],
    ] as const) {
      const lines = [sampleBusiness({ id: 'fine-0' }), sampleBusiness({ id: 'odd-0', ...extra })];
      const r = await admin(h.url, 'POST', '/admin/v1/businesses/import', { body: ndjson(lines), contentType: 'application/x-ndjson' });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field, description: `line 2: unknown field "${field}"` });
      const one = await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness(extra) });
      expect(one.status).toBe(400);
      expect(one.body.error).toMatchObject({ field, description: `body has an unknown field "${field}"` });
    }
  });

  it('takes CSV with a header row: quoted cells, lists, booleans and JSON cells, the same record as JSON lines would make', async () => {
    const before = await count();
    const csv =
      '\ufeffid,name,address1,city,state,country,zip_code,timezone,latitude,longitude,review_count,rating,price,phone,categories,transactions,is_claimed,hours,attributes\n' +
      'csv-1,"Quoted, With Comma",1 Market St,San Francisco,CA,US,94105,America/Los_Angeles,37.79,-122.39,25,4.5,$$,+14155550111,italian;pizza:Pizza Places,pickup;delivery,yes,' +
      '"[{""open"":[{""day"":0,""start"":""0900"",""end"":""1700""}]}]","{""outdoor_seating"":true}"\n' +
      '\n' +
      'csv-2,"Two\nLines",2 Market St,San Francisco,CA,US,,America/Los_Angeles,37.79,-122.39,0,,,,,,false,,\n';
    const r = await importCsv(csv);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ imported: 2, created: 2, not_searchable: { count: 1, no_reviews: 1 } });
    expect(await count()).toBe(before + 2);
    const one = (await admin(h.url, 'GET', '/admin/v1/businesses/csv-1')).body;
    expect(one).toMatchObject({
      name: 'Quoted, With Comma',
      location: { address1: '1 Market St', zip_code: '94105', address3: '' },
      coordinates: { latitude: 37.79, longitude: -122.39 },
      review_count: 25,
      rating: 4.5,
      price: '$$',
      is_claimed: true,
      categories: [
        { alias: 'italian', title: 'Italian' },
        { alias: 'pizza', title: 'Pizza Places' },
      ],
      transactions: ['pickup', 'delivery'],
      hours: [{ hours_type: 'REGULAR', open: [{ day: 0, start: '0900', end: '1700', is_overnight: false }] }],
      attributes: { outdoor_seating: true },
    });
    // The same business as a JSON line makes the same record.
    const { id: _id, alias: _alias, ...fields } = one;
    await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson([{ ...fields, id: 'jsonl-1', name: 'Quoted, With Comma' }]),
      contentType: 'application/x-ndjson',
    });
    const twin = (await admin(h.url, 'GET', '/admin/v1/businesses/jsonl-1')).body;
    expect({ ...twin, id: 'csv-1', alias: one.alias }).toEqual(one);
    expect((await admin(h.url, 'GET', '/admin/v1/businesses/csv-2')).body.name).toBe('Two\nLines');
  });

  it('refuses a bad CSV whole, naming the line or the column, and imports nothing', async () => {
    const before = await count();
    const header = 'id,name,city,state,country,timezone\n';
    const good = 'bad-csv-1,Fine,San Francisco,CA,US,America/Los_Angeles\n';
    for (const [body, description, field] of [
      [
        `id,name,city,state,country,timezone,stars\n${good}`,
        /^line 1: unknown column "stars"; a business CSV's columns are id, alias, name/,
        'stars',
      ],
      [`id,name,name,city,state,country,timezone\n`, /^line 1: column "name" gives name a second time/, 'name'],
      [`${header}${good}bad-csv-2,Short,San Francisco\n`, /^line 3 has a different number of cells than the header/, undefined],
      [
        `${header}${good}bad-csv-3,Bad Zone,San Francisco,CA,US,Mars/Olympus\n`,
        /^line 3: timezone "Mars\/Olympus" is not an IANA time zone/,
        'timezone',
      ],
      [
        `id,name,city,state,country,timezone,rating\n${good.trim()},\nbad-csv-4,Bad,San Francisco,CA,US,America/Los_Angeles,lots\n`,
        /^line 3: rating must be number/,
        'rating',
      ],
      [`${header}${good}bad-csv-1,Twice,San Francisco,CA,US,America/Los_Angeles\n`, /^line 3: id bad-csv-1 appears twice/, 'id'],
      [`${header}bad-csv-5,"Unclosed,San Francisco,CA,US,America/Los_Angeles\n`, /^line \d+ is not CSV/, undefined],
      [header, /holds no businesses/, undefined],
    ] as const) {
      const r = await importCsv(body);
      expect(r.status, body).toBe(400);
      expect(r.body.error.description, body).toMatch(description);
      if (field) expect(r.body.error.field, body).toBe(field);
    }
    expect(await count()).toBe(before);
  });
});
