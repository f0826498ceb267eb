import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLineBatches } from '../../src/platform/json-lines.js';
import { restaurantSettings } from '../support/restaurant.js';
import { ADMIN_TOKEN, admin, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

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
    expect(r.body).toEqual({ imported: 5_000, created: 5_000, updated: 0 });
    expect(await count()).toBe(before + 5_000);
    // Again, changed: every one replaced, none created.
    const again = await admin(h.url, 'POST', '/admin/v1/businesses/import', {
      body: ndjson(lines.map((b) => ({ ...b, rating: 3 }))),
      contentType: 'application/x-ndjson',
    });
    expect(again.body).toEqual({ imported: 5_000, created: 0, updated: 5_000 });
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
