import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, expectCode, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { createRestaurant, guest, hold, reserve } from '../support/restaurant.js';

/**
 * Issue 43: the console's "find anything" (`GET /admin/v1/find`): a partner, business,
 * reservation, request id, webhook message id or lead typed into one box finds it, and names the
 * console page that shows it.
 */
describe.each(dialects)('finding anything as the operator on %s', (dialect) => {
  let h: Harness;
  const receiver = new Receiver();

  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(async () => {
    await receiver.stop();
    await h.close();
  });

  const find = async (q: string) => {
    const answer = await admin(h.url, 'GET', `/admin/v1/find?q=${encodeURIComponent(q)}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.results as Array<{ kind: string; id: string; title: string; detail: string; page: string }>;
  };

  it('finds each kind by what identifies it, and says where the console shows it', async () => {
    const p = await createPartner(h.url, ['reservations', 'webhooks', 'business_subscriptions'], 'Zephyr Bookings');
    const restaurant = await createRestaurant(h.url);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${restaurant.id}`);
    receiver.behaviour = Receiver.echoing(200);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url: await receiver.start(), client_id: 'find' } });
    await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`);
    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: p.apiKey.api_key,
      json: { business_ids: [restaurant.id] },
    });

    // A partner by a part of its name (any case), or by its id.
    expect(await find('zephyr')).toEqual([
      { kind: 'partner', id: p.partner.id, title: 'Zephyr Bookings', detail: 'active', page: `partners?id=${p.partner.id}` },
    ]);
    expect((await find(p.partner.id)).map((f) => f.kind)).toContain('partner');
    // A business by the start of its name, its alias or its id.
    const business = (await admin(h.url, 'GET', `/admin/v1/businesses/${restaurant.id}`)).body;
    for (const q of [business.name.slice(0, 6), business.alias, business.id])
      expect(await find(q), q).toContainEqual(
        expect.objectContaining({ kind: 'business', id: business.id, page: `businesses?id=${business.id}` }),
      );

    // A reservation, and the request that made it by its X-Request-Id.
    const slot = { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'find-1' };
    const held = await hold(h.url, p.apiKey.api_key, restaurant.id, slot);
    const booked = await reserve(h.url, p.apiKey.api_key, restaurant.id, { ...slot, ...guest, hold_id: held.body.hold_id });
    expect(booked.status, booked.text).toBe(200);
    expect(await find(booked.body.reservation_id)).toEqual([
      expect.objectContaining({
        kind: 'reservation',
        id: booked.body.reservation_id,
        detail: 'active',
        page: `reservations?business=${restaurant.id}&date=2031-05-07`,
      }),
    ]);
    const requestId = booked.headers.get('x-request-id')!;
    await h.pbs.services.requestLog.flush();
    expect(await find(requestId)).toEqual([
      expect.objectContaining({
        kind: 'request',
        title: '200 POST /v3/bookings/{business_id}/reservations',
        page: `requests?request_id=${requestId}`,
      }),
    ]);

    // A webhook message by its webhook-id, and a lead.
    const lead = (await admin(h.url, 'POST', `/admin/v1/businesses/${restaurant.id}/events/leads`, { json: {} })).body;
    await h.pbs.deliverWebhooks();
    expect(await find(lead.message_id)).toEqual([
      expect.objectContaining({ kind: 'message', id: lead.message_id, title: 'NEW_EVENT', detail: '1 delivery' }),
    ]);
    expect(await find(lead.lead_id)).toEqual([
      expect.objectContaining({ kind: 'lead', id: lead.lead_id, page: `leads?business=${restaurant.id}&lead=${lead.lead_id}` }),
    ]);

    expect(await find('no such thing anywhere')).toEqual([]);
  });

  it('refuses an empty or over-long query', async () => {
    expectCode(await admin(h.url, 'GET', '/admin/v1/find?q='), 400, 'VALIDATION_ERROR');
    expectCode(await admin(h.url, 'GET', `/admin/v1/find?q=${'x'.repeat(201)}`), 400, 'VALIDATION_ERROR');
    expectCode(await call(h.url, 'GET', '/admin/v1/find?q=x'), 401, 'TOKEN_MISSING');
  });
});
