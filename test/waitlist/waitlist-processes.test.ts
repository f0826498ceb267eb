import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, sampleBusiness } from '../support/harness.js';
import { startProcessPair, type ProcessPair, type ServerProcess } from '../support/process.js';

const ALL_DAY = [{ hours_type: 'REGULAR', open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359' })) }];

/** Issue 15: the waitlist's guarantees with two pbs processes on one PostgreSQL database. */
describe('waitlist across two processes on postgres', () => {
  let pair: ProcessPair | undefined;
  let servers: ServerProcess[] = [];
  let key: string;
  let partnerId: string;
  let n = 0;

  beforeAll(async () => {
    pair = await startProcessPair('wl');
    servers = pair.servers;
    const partner = await createPartner(servers[0].url, ['waitlist'], 'Busy Line');
    key = partner.apiKey.api_key;
    partnerId = partner.partner.id;
  });
  afterAll(() => pair?.close());

  const restaurant = async () => {
    const base = servers[0].url;
    const id = (await admin(base, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: `Busy ${++n}` }) })).body.id as string;
    await admin(base, 'PUT', `/admin/v1/partners/${partnerId}/businesses/${id}`);
    await admin(base, 'PUT', `/admin/v1/businesses/${id}/waitlist`, { json: { hours: ALL_DAY, max_party_size: 20 } });
    return id;
  };
  const post = (i: number, pathname: string, json: object) => call(servers[i % 2].url, 'POST', pathname, { token: key, json });

  it('gives 500 joins sent to both processes distinct places; one phone twice is one visit', async () => {
    const id = await restaurant();
    await admin(servers[0].url, 'POST', `/admin/v1/businesses/${id}/waitlist/walk-ins`, { json: { party_size: 2 } });
    const joins = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        post(i, `/v3/businesses/${id}/waitlist/visits`, {
          phone: `+1415600${String(i).padStart(4, '0')}`,
          party_size: 1 + (i % 8),
          name: `P${i}`,
        }),
      ),
    );
    for (const r of joins) expect(r.status, r.text).toBe(201);
    const rows = await pair!.pg.database.db.selectFrom('waitlist_visits').select('position').where('business_id', '=', id).execute();
    expect(rows).toHaveLength(501);
    expect(new Set(rows.map((r) => r.position)).size).toBe(501);
    const twice = await Promise.all(
      [0, 1].map((i) => post(i, `/v3/businesses/${id}/waitlist/visits`, { phone: '+14156999999', party_size: 2, name: 'Twice' })),
    );
    expect(twice.map((r) => r.status).sort()).toEqual([201, 422]);
  });

  it('lets 9 of 10 on-my-way visits sent to both processes in', async () => {
    const id = await restaurant();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(i, `/v3/businesses/${id}/waitlist/on-my-way`, {
          phone: `+1415700${String(i).padStart(4, '0')}`,
          party_size: 2,
          name: 'OMW',
          arrival_range_min: 5,
          arrival_range_max: 10,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(9);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(['CONFLICT']);
  });
});
