import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, startPbs, type Harness, linkedBusiness } from '../support/harness.js';

describe.each(dialects)('subscriptions on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '1000' } });
    p = await createPartner(h.url, ['business_subscriptions', 'webhooks', 'listing_management']);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/business_subscriptions`, { json: { per_second: 1000 } });
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/listing_management`, { json: { per_second: 1000 } });
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/webhooks`, { json: { per_second: 1000 } });
    for (let i = 0; i < 6; i++) ids.push((await linkedBusiness(h.url, [p.partner.id], { name: `Sub ${i}` })).id);
  });
  afterAll(() => h.close());

  const key = () => p.apiKey.api_key;
  const basic = (): [string, string] => [p.basic.username, p.basic.password];
  const list = (type: string, extra = '') =>
    call(h.url, 'GET', `/v3/businesses/subscriptions?subscription_type=${type}${extra}`, { token: key() });
  const listed = async (type: string) =>
    (await list(type, '&limit=10000')).body.subscriptions.map((s: { business_id: string }) => s.business_id).sort();

  it('subscribes asynchronously: 202 {}, applied by the job, listed with ISO 8601 UTC times', async () => {
    h.clock.advance(1000);
    const r = await call(h.url, 'POST', '/v3/businesses/subscriptions', {
      token: key(),
      json: { subscription_types: ['WEBHOOK'], business_ids: [ids[0], ids[1], 'no-such-business'] },
    });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({});
    expect((await list('WEBHOOK')).body.total).toBe(0); // not yet: the job has not run
    await h.pbs.ctx.tasks.runDue();
    const after = await list('WEBHOOK');
    expect(after.body).toMatchObject({ total: 2, limit: 100, offset: 0, subscription_type: 'WEBHOOK' });
    expect(after.body.subscriptions[0].subscribed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    const requests = (await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/subscription-requests`)).body.requests;
    expect(requests[0]).toMatchObject({ status: 'COMPLETED', action: 'subscribe', skipped_business_ids: ['no-such-business'] });
  });

  it('unsubscribes with DELETE, and pages with limit and offset', async () => {
    await call(h.url, 'POST', '/v3/businesses/subscriptions', {
      token: key(),
      json: { subscription_types: ['YELP_KNOWLEDGE'], business_ids: ids },
    });
    await h.pbs.ctx.tasks.runDue();
    const page = await list('YELP_KNOWLEDGE', '&limit=2&offset=1');
    expect(page.body.total).toBe(6);
    expect(page.body.subscriptions).toHaveLength(2);
    const del = await call(h.url, 'DELETE', '/v3/businesses/subscriptions', {
      token: key(),
      json: { subscription_types: ['YELP_KNOWLEDGE'], business_ids: ids.slice(0, 4) },
    });
    expect(del.status).toBe(202);
    await h.pbs.ctx.tasks.runDue();
    expect(await listed('YELP_KNOWLEDGE')).toEqual(ids.slice(4).sort());
    expect((await list('YELP_KNOWLEDGE', '&limit=10001')).status).toBe(400);
    expect((await list('YELP_KNOWLEDGE', '&limit=0')).body).toMatchObject({ total: 2, subscriptions: [] });
  });

  it('validates bodies and types', async () => {
    const post = (json: unknown) => call(h.url, 'POST', '/v3/businesses/subscriptions', { token: key(), json });
    expect((await post({ subscription_types: ['WEBHOOK'], business_ids: [] })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await post({ subscription_types: [], business_ids: [ids[0]] })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await post({ subscription_types: ['CARRIER_PIGEON'], business_ids: [ids[0]] })).status).toBe(400);
    expect((await post({ business_ids: [ids[0]] })).status).toBe(400);
    const tooMany = await post({ subscription_types: ['WEBHOOK'], business_ids: Array.from({ length: 1001 }, (_, i) => `b${i}`) });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await list('NOPE')).status).toBe(400);
    expect((await call(h.url, 'GET', '/v3/businesses/subscriptions', { token: key() })).status).toBe(400);
  });

  it('refuses a type whose interface is not enabled, and the endpoints without business_subscriptions', async () => {
    const q = await createPartner(h.url, ['business_subscriptions'], 'Knowledge only');
    const r = await call(h.url, 'GET', '/v3/businesses/subscriptions?subscription_type=WEBHOOK', { token: q.apiKey.api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('PARTNER_ENDPOINT_DISABLED');
    expect(
      (await call(h.url, 'GET', '/v3/businesses/subscriptions?subscription_type=YELP_KNOWLEDGE', { token: q.apiKey.api_key })).status,
    ).toBe(200);
    const none = await createPartner(h.url, ['reservations'], 'None');
    expect(
      (await call(h.url, 'GET', '/v3/businesses/subscriptions?subscription_type=YELP_KNOWLEDGE', { token: none.apiKey.api_key })).body.error
        .code,
    ).toBe('PARTNER_ENDPOINT_DISABLED');
  });

  it('limits each partner to 5 requests per second by default', async () => {
    const q = await createPartner(h.url, ['business_subscriptions'], 'Rate limited');
    h.wall.tick();
    const statuses = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await call(h.url, 'GET', '/v3/businesses/subscriptions?subscription_type=YELP_KNOWLEDGE', { token: q.apiKey.api_key })).status,
      );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('keeps the replaced allow-list endpoints in step with WEBHOOK subscriptions', async () => {
    const added = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: key(),
      json: { business_ids: [ids[2], ids[3]] },
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ whitelist_business_ids_count: 4 });
    expect(await listed('WEBHOOK')).toEqual([ids[0], ids[1], ids[2], ids[3]].sort());
    const removed = await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/remove', {
      token: key(),
      json: { business_ids: [ids[0]] },
    });
    expect(removed.body).toEqual({ whitelist_business_ids_count: 3 });
    await call(h.url, 'DELETE', '/v3/businesses/subscriptions', {
      token: key(),
      json: { subscription_types: ['WEBHOOK'], business_ids: [ids[1]] },
    });
    await h.pbs.ctx.tasks.runDue();
    expect(
      (await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: key(), json: { business_ids: [ids[1]] } })).body,
    ).toEqual({
      whitelist_business_ids_count: 3,
    });
    expect((await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: key(), json: { business_ids: [] } })).status).toBe(
      400,
    );
  });

  it('serves deprecated listing management over Basic auth, in step with LISTING_MANAGEMENT subscriptions', async () => {
    const add = await call(h.url, 'POST', '/listing_management/businesses/add/v1', {
      basic: basic(),
      json: { business_ids: ids.slice(0, 3) },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({});
    const got = await call(h.url, 'GET', '/listing_management/businesses/v1', { basic: basic() });
    expect(got.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(got.body).not.toHaveProperty('subscription_type');
    expect(await listed('LISTING_MANAGEMENT')).toEqual(ids.slice(0, 3).sort());
    const page = await call(h.url, 'GET', '/listing_management/businesses/v1?limit=1&offset=2', { basic: basic() });
    expect(page.body.subscriptions).toHaveLength(1);
    for (const q of ['limit=0', 'limit=10001', 'offset=-1'])
      expect((await call(h.url, 'GET', `/listing_management/businesses/v1?${q}`, { basic: basic() })).status).toBe(400);

    await call(h.url, 'POST', '/v3/businesses/subscriptions', {
      token: key(),
      json: { subscription_types: ['LISTING_MANAGEMENT'], business_ids: [ids[5]] },
    });
    await h.pbs.ctx.tasks.runDue();
    const remove = await call(h.url, 'POST', '/listing_management/businesses/remove/v1', {
      basic: basic(),
      json: { business_ids: [ids[0]] },
    });
    expect(remove.status).toBe(200);
    expect(
      (await call(h.url, 'GET', '/listing_management/businesses/v1', { basic: basic() })).body.subscriptions
        .map((s: { business_id: string }) => s.business_id)
        .sort(),
    ).toEqual([ids[1], ids[2], ids[5]].sort());

    const tooMany = await call(h.url, 'POST', '/listing_management/businesses/add/v1', {
      basic: basic(),
      json: { business_ids: Array.from({ length: 501 }, (_, i) => `b${i}`) },
    });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.description).toBe('The number of businesses in the request exceeded the maximum (500)');
    expect(
      (await call(h.url, 'POST', '/listing_management/businesses/add/v1', { basic: basic(), json: { business_ids: [] } })).status,
    ).toBe(400);
    const bearer = await call(h.url, 'GET', '/listing_management/businesses/v1', { token: key() });
    expect(bearer.status).toBe(401);
    expect((await call(h.url, 'GET', '/listing_management/businesses/v1')).body.error.code).toBe('TOKEN_MISSING');
  });
});
