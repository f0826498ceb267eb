import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, linkedBusiness, portalSession, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { createRestaurant, guest, hold, reserve } from '../support/restaurant.js';

const DAY = '2031-05-07';
// Open all day: the harness clock stands at 09:00 in Los Angeles.
const ALL_DAY = [
  { hours_type: 'REGULAR', open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359', is_overnight: false })) },
];

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

  it('names the request in the events of every partner write that records one', async () => {
    const p = await createPartner(h.url, ['reservations', 'waitlist', 'advertising'], 'Every write');
    const key = { token: p.apiKey.api_key };
    const basic = { basic: [p.basic.username, p.basic.password] as [string, string] };

    const restaurantId = (await createRestaurant(h.url)).id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${restaurantId}`);
    const slot = { date: DAY, time: '20:00', covers: '2', unique_id: 'every-write-1' };
    const held = await hold(h.url, p.apiKey.api_key, restaurantId, slot);
    const booked = await reserve(h.url, p.apiKey.api_key, restaurantId, { ...slot, ...guest, hold_id: held.body.hold_id });
    const canceled = await call(h.url, 'POST', `/v3/bookings/reservation/${booked.body.reservation_id}/cancel`, key);
    expect(canceled.status, canceled.text).toBe(200);

    const line = (await linkedBusiness(h.url, [p.partner.id], { name: 'Every write line' })).id;
    await admin(h.url, 'PUT', `/admin/v1/businesses/${line}/waitlist`, { json: { hours: ALL_DAY } });
    // With no wait a guest announces itself; then a walk-in makes a wait to join.
    const coming = await call(h.url, 'POST', `/v3/businesses/${line}/waitlist/on-my-way`, {
      ...key,
      json: { phone: '+14155550102', party_size: 2, name: 'Grace', arrival_range_min: 5, arrival_range_max: 15 },
    });
    expect(coming.status, coming.text).toBe(201);
    await admin(h.url, 'POST', `/admin/v1/businesses/${line}/waitlist/walk-ins`, { json: { party_size: 2 } });
    const joined = await call(h.url, 'POST', `/v3/businesses/${line}/waitlist/visits`, {
      ...key,
      json: { phone: '+14155550101', party_size: 2, name: 'Ada' },
    });
    expect(joined.status, joined.text).toBe(201);
    expect((await call(h.url, 'POST', `/v3/visits/${joined.body.visit_id}/cancel`, key)).status).toBe(204);

    const advertised = (await linkedBusiness(h.url, [p.partner.id], { name: 'Every write ads', specialties: 'Handmade pasta' })).id;
    const job = await call(
      h.url,
      'POST',
      `/v1/reseller/program/create?business_id=${advertised}&program_name=CPC&budget=20000&is_autobid=true`,
      basic,
    );
    h.clock.advance(2000);
    await h.pbs.ctx.tasks.runDue();
    const receipt = await call(h.url, 'GET', `/v1/reseller/status/${job.body.job_id}`, basic);
    expect(receipt.body.business_results[0].update_results.program_added.program_id.status, receipt.text).toBe('COMPLETED');
    const program = receipt.body.business_results[0].update_results.program_added.program_id.requested_value as string;
    expect((await call(h.url, 'POST', `/program/${program}/pause/v1`, basic)).status).toBe(202);
    const featured = await call(h.url, 'POST', `/program/${program}/features/v1`, {
      ...basic,
      json: { features: { AD_GOAL: { ad_goal: 'CALLS' } } },
    });
    expect(featured.status, featured.text).toBe(200);

    const session = await portalSession(h, p.partner.id);
    const entries = await entriesOf(session);
    const causedBy = async (operation: string) => {
      const entry = entries.find((e) => e.operation === operation);
      expect(entry, operation).toBeDefined();
      const whole = (await call(h.url, 'GET', `/portal/v1/request-log/${entry!.id}`, { headers: session })).body;
      return whole.caused.map((e: { event_type: string }) => e.event_type);
    };
    expect(await causedBy('POST /v3/bookings/{business_id}/reservations')).toEqual(['RESERVATION_CREATED_EVENT']);
    expect(await causedBy('POST /v3/bookings/reservation/{reservation_id}/cancel')).toEqual(['RESERVATION_CANCELED_BY_GUEST_EVENT']);
    expect(await causedBy('POST /v3/businesses/{business_id}/waitlist/visits')).toEqual(['WAITLIST_VISIT_UPDATED_EVENT']);
    expect(await causedBy('POST /v3/businesses/{business_id}/waitlist/on-my-way')).toEqual(['WAITLIST_VISIT_UPDATED_EVENT']);
    expect(await causedBy('POST /v3/visits/{visit_id}/cancel')).toEqual(['WAITLIST_VISIT_UPDATED_EVENT']);
    expect(await causedBy('POST /program/{program_id}/pause/v1')).toEqual(['ADVERTISING_PROGRAM_UPDATED_EVENT']);
    expect(await causedBy('POST /program/{program_id}/features/v1')).toEqual(['ADVERTISING_PROGRAM_UPDATED_EVENT']);
    // A read causes none.
    expect(await causedBy('GET /v1/reseller/status/{job_id}')).toEqual([]);
  });
});
