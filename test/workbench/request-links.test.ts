import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, linkedBusiness, portalSession, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { createRestaurant, guest, hold, reserve } from '../support/restaurant.js';

const DAY = '2031-05-07';

/** Issue 26: a request-log entry links to the webhook events it caused and their deliveries (docs/request-log.md "Links"). */
describe.each(dialects)('request-log links on %s', (dialect) => {
  let h: Harness;
  const receiver = new Receiver();

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_AD_JOB_DELAY_MS: '2000' } });
  });
  afterAll(async () => {
    await receiver.stop();
    await h.close();
  });

  /** The entries of a partner's request log, newest first, as its portal session reads them. */
  const entriesOf = async (session: { cookie: string; origin: string }) => {
    await h.pbs.services.requestLog.flush();
    return (await call(h.url, 'GET', '/portal/v1/request-log', { headers: session })).body.entries as Array<Record<string, any>>;
  };

  it('links a booking to its reservation event and the delivery to the partner’s receiver, in the partner’s own view', async () => {
    const p = await createPartner(h.url, ['reservations', 'webhooks', 'business_subscriptions'], 'Linked');
    const restaurantId = (await createRestaurant(h.url)).id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${restaurantId}`);
    receiver.behaviour = Receiver.echoing(200);
    const url = await receiver.start();
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, {
      json: { url, client_id: 'linked', event_types: ['RESERVATION_CREATED_EVENT'] },
    });
    await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`);
    await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', {
      token: p.apiKey.api_key,
      json: { business_ids: [restaurantId] },
    });

    const slot = { date: DAY, time: '19:00', covers: '2', unique_id: 'linked-1' };
    const held = await hold(h.url, p.apiKey.api_key, restaurantId, slot);
    const booked = await reserve(h.url, p.apiKey.api_key, restaurantId, { ...slot, ...guest, hold_id: held.body.hold_id });
    expect(booked.status, booked.text).toBe(200);
    await h.pbs.deliverWebhooks();

    const session = await portalSession(h, p.partner.id);
    const booking = (await entriesOf(session)).find((e) => e.operation === 'POST /v3/bookings/{business_id}/reservations')!;
    const whole = (await call(h.url, 'GET', `/portal/v1/request-log/${booking.id}`, { headers: session })).body;
    expect(whole.caused).toHaveLength(1);
    const [event] = whole.caused;
    expect(event).toMatchObject({ event_type: 'RESERVATION_CREATED_EVENT', business_id: restaurantId });
    expect(event.deliveries).toEqual([expect.objectContaining({ partner_id: p.partner.id, status: 'delivered', attempts: 1 })]);
    // The message the receiver got is the one linked.
    expect(receiver.posts().map((post) => post.headers['webhook-id'])).toContain(event.message_id);
  });

  it('links an advertising job’s request to the events written when the job is applied later', async () => {
    const p = await createPartner(h.url, ['advertising'], 'Reseller');
    const business = (await linkedBusiness(h.url, [p.partner.id], { name: 'Linked ads' })).id;
    const created = await call(h.url, 'POST', `/v1/reseller/program/create?business_id=${business}&program_name=LOGO`, {
      basic: [p.basic.username, p.basic.password],
    });
    expect(created.status, created.text).toBe(200);
    h.clock.advance(2000);
    await h.pbs.ctx.tasks.runDue();
    const session = await portalSession(h, p.partner.id);
    const entry = (await entriesOf(session)).find((e) => e.operation === 'POST /v1/reseller/program/create')!;
    const whole = (await call(h.url, 'GET', `/portal/v1/request-log/${entry.id}`, { headers: session })).body;
    expect(whole.caused.map((e: { event_type: string }) => e.event_type).sort()).toEqual([
      'ADVERTISING_JOB_COMPLETED_EVENT',
      'ADVERTISING_PROGRAM_UPDATED_EVENT',
    ]);
  });
});
