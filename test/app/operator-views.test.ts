import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, T0, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { createRestaurant, hold, reserve } from '../support/restaurant.js';

/** The operator's read views the console draws: a restaurant's day, bookings per day, deliveries per minute. */
describe.each(dialects)('operator views on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  let restaurant: { id: string; alias: string };
  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    p = await createPartner(h.url, ['reservations', 'business_subscriptions', 'webhooks']);
    restaurant = await createRestaurant(h.url);
  });
  afterAll(() => h.close());

  it("lists a restaurant's reservations of a day, canceled ones too, and its live holds", async () => {
    h.clock.set(T0);
    const token = p.apiKey.api_key;
    const first = await hold(h.url, token, restaurant.id, { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'dev-1' });
    const booked = await reserve(h.url, token, restaurant.id, {
      date: '2031-05-07',
      time: '19:00',
      covers: '2',
      unique_id: 'dev-1',
      hold_id: first.body.hold_id,
    });
    expect(booked.status).toBe(200);
    const second = await hold(h.url, token, restaurant.id, { date: '2031-05-07', time: '18:00', covers: '4', unique_id: 'dev-2' });
    const other = await hold(h.url, token, restaurant.id, { date: '2031-05-09', time: '18:00', covers: '2', unique_id: 'dev-3' });
    expect(other.status).toBe(200);

    const day = await admin(h.url, 'GET', `/admin/v1/businesses/${restaurant.alias}/reservations?date=2031-05-07`);
    expect(day.status).toBe(200);
    expect(day.body.business_id).toBe(restaurant.id);
    expect(day.body.reservations).toEqual([
      expect.objectContaining({
        id: booked.body.reservation_id,
        partner_id: p.partner.id,
        time: '19:00',
        covers: 2,
        first_name: 'Ada',
        last_name: 'Lovelace',
        status: 'active',
        table_name: 'two',
      }),
    ]);
    // The consumed hold is gone; the live one is listed, by time.
    expect(day.body.holds).toEqual([
      expect.objectContaining({ id: second.body.hold_id, time: '18:00', covers: 4, unique_id: 'dev-2', table_name: 'four' }),
    ]);

    await admin(h.url, 'POST', `/admin/v1/reservations/${booked.body.reservation_id}/cancel`);
    h.clock.advance(6 * 60_000); // past the holds' five minutes
    const later = await admin(h.url, 'GET', `/admin/v1/businesses/${restaurant.id}/reservations?date=2031-05-07`);
    expect(later.body.reservations).toEqual([expect.objectContaining({ status: 'canceled', canceled_by: 'restaurant' })]);
    expect(later.body.holds).toEqual([]);
  });

  it('refuses a bad date or an unknown restaurant with the catalogue codes', async () => {
    for (const date of ['2031-13-45', 'tomorrow', '2031-5-7']) {
      const r = await admin(h.url, 'GET', `/admin/v1/businesses/${restaurant.id}/reservations?date=${date}`);
      expect(r.status, date).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await admin(h.url, 'GET', `/admin/v1/businesses/${restaurant.id}/reservations`)).status).toBe(400);
    const unknown = await admin(h.url, 'GET', '/admin/v1/businesses/no-such-place/reservations?date=2031-05-07');
    expect(unknown.status).toBe(404);
    expect((await call(h.url, 'GET', `/admin/v1/businesses/${restaurant.id}/reservations?date=2031-05-07`)).status).toBe(401);
  });

  it('counts reservations made per day, every day listed', async () => {
    const perDay = await admin(h.url, 'GET', '/admin/v1/reservations/per-day?days=3');
    expect(perDay.status).toBe(200);
    expect(perDay.body.days).toEqual([
      { date: '2031-05-03', made: 0, canceled: 0 },
      { date: '2031-05-04', made: 0, canceled: 0 },
      { date: '2031-05-05', made: 1, canceled: 1 },
    ]);
    expect((await admin(h.url, 'GET', '/admin/v1/reservations/per-day')).body.days).toHaveLength(14);
    for (const days of ['0', '367', 'x'])
      expect((await admin(h.url, 'GET', `/admin/v1/reservations/per-day?days=${days}`)).status, days).toBe(400);
  });

  it('counts delivery attempts per minute, answered 2xx or not', async () => {
    const business = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Counted' }) })).body.id;
    let status = 200;
    const receiver = new Receiver();
    const echo = Receiver.echoing();
    receiver.behaviour = (req, res) => (req.method === 'GET' ? echo(req, res) : void res.writeHead(status).end());
    const url = await receiver.start();
    try {
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/webhook`, { json: { url, client_id: 'counted' } });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/webhook/verify`)).body.status).toBe('verified');
      await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${business}`);
      await call(h.url, 'POST', '/v3/webhooks/whitelists/businesses/add', { token: p.apiKey.api_key, json: { business_ids: [business] } });
      h.clock.set(T0 + 3600_000);
      await admin(h.url, 'POST', `/admin/v1/businesses/${business}/events/leads`, { json: {} });
      await h.pbs.deliverWebhooks();
      status = 500;
      h.clock.advance(60_000);
      await admin(h.url, 'POST', `/admin/v1/businesses/${business}/events/leads`, { json: {} });
      await h.pbs.deliverWebhooks();

      const minutes = await admin(h.url, 'GET', '/admin/v1/webhook-deliveries/per-minute?minutes=3');
      expect(minutes.status).toBe(200);
      expect(minutes.body.minutes).toEqual([
        { minute: '2031-05-05T16:59:00.000Z', succeeded: 0, failed: 0 },
        { minute: '2031-05-05T17:00:00.000Z', succeeded: 1, failed: 0 },
        { minute: '2031-05-05T17:01:00.000Z', succeeded: 0, failed: 1 },
      ]);
      expect((await admin(h.url, 'GET', '/admin/v1/webhook-deliveries/per-minute')).body.minutes).toHaveLength(60);
      for (const m of ['0', '1441'])
        expect((await admin(h.url, 'GET', `/admin/v1/webhook-deliveries/per-minute?minutes=${m}`)).status, m).toBe(400);
    } finally {
      await receiver.stop();
    }
  });
});
