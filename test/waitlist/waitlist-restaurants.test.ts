import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

describe.each(dialects)('GET /v3/partner/restaurants on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(() => h.close());

  it("lists only the calling partner's linked businesses, paged", async () => {
    const mine = await createPartner(h.url, ['waitlist'], 'Mine');
    const theirs = await createPartner(h.url, ['waitlist'], 'Theirs');
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push((await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: `Resto ${n}` }) })).body.id);
    await admin(h.url, 'POST', `/admin/v1/partners/${mine.partner.id}/businesses/import`, {
      body: ids.slice(0, 2).join('\n'),
      contentType: 'text/csv',
    });
    await admin(h.url, 'PUT', `/admin/v1/partners/${theirs.partner.id}/businesses/${ids[2]}`);

    const all = await call(h.url, 'GET', '/v3/partner/restaurants', { token: mine.apiKey.api_key });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(2);
    expect(all.body.restaurants.map((r: { business_id: string }) => r.business_id).sort()).toEqual(ids.slice(0, 2).sort());
    expect(all.body.restaurants[0]).toMatchObject({
      name: expect.stringMatching(/^Resto/),
      timezone: 'America/Los_Angeles',
      location: { city: 'San Francisco' },
    });
    const page = await call(h.url, 'GET', '/v3/partner/restaurants?limit=1&offset=1', { token: mine.apiKey.api_key });
    expect(page.body).toMatchObject({ total: 2 });
    expect(page.body.restaurants).toHaveLength(1);
    const limited = await call(h.url, 'GET', '/v3/partner/restaurants?limit=0', { token: mine.apiKey.api_key });
    expect(limited.status).toBe(400);

    const noWaitlist = await createPartner(h.url, ['reservations'], 'No waitlist');
    const denied = await call(h.url, 'GET', '/v3/partner/restaurants', { token: noWaitlist.apiKey.api_key });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PARTNER_ENDPOINT_DISABLED');
  });
});
