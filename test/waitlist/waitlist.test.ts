import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '@pbs/sdk';
import {
  admin,
  answered,
  call,
  createPartner,
  dialects,
  expectCode,
  linkedBusiness,
  partnerClient,
  sampleBusiness,
  startPbs,
  T0,
  type Harness,
} from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { createRestaurant } from '../support/restaurant.js';

type JoinBody = paths['/v3/businesses/{business_id}/waitlist/visits']['post']['requestBody']['content']['application/json'];
type OnMyWayBody = paths['/v3/businesses/{business_id}/waitlist/on-my-way']['post']['requestBody']['content']['application/json'];

// The harness clock: Monday 2031-05-05 16:00 UTC, 09:00 in Los Angeles.
const ALL_DAY = [
  { hours_type: 'REGULAR', open: Array.from({ length: 7 }, (_, day) => ({ day, start: '0000', end: '2359', is_overnight: false })) },
];

/** Issue 15: a live line per restaurant, joins, on-my-way visits, estimates, visits and cancel. */
describe.each(dialects)('waitlist on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  let other: Awaited<ReturnType<typeof createPartner>>;
  let n = 0;
  let phones = 0;

  beforeAll(async () => {
    h = await startPbs(dialect);
    p = await createPartner(h.url, ['waitlist'], 'Line Partner');
    other = await createPartner(h.url, ['waitlist'], 'Other Line Partner');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/waitlist`, { json: { per_second: 100000 } });
  });
  afterAll(() => h.close());
  afterEach(() => h.clock.set(T0));

  /** A restaurant linked to the partner, its waitlist configured (open all day unless told). */
  const restaurant = async (config: Record<string, unknown> = {}) => {
    const { id } = await linkedBusiness(h.url, [p.partner.id], { name: `Line ${++n}` });
    const r = await admin(h.url, 'PUT', `/admin/v1/businesses/${id}/waitlist`, { json: { hours: ALL_DAY, ...config } });
    expect(r.status, r.text).toBe(200);
    return id;
  };
  const phone = () => `+1415555${String(1000 + ++phones).padStart(4, '0')}`;
  const as = (q = p) => ({ token: q.apiKey.api_key });
  // The partner's calls go through the typed SDK; shapes no typed client can send go through `call`.
  const sdk = (q = p) => partnerClient(h.url, q);
  const business = (id: string) => ({ params: { path: { business_id: id } } });
  const status = (id: string) => answered(sdk().GET('/v3/businesses/{business_id}/waitlist/status', business(id)));
  const join = (id: string, body: Partial<JoinBody> = {}, q = p) =>
    answered(
      sdk(q).POST('/v3/businesses/{business_id}/waitlist/visits', {
        ...business(id),
        body: { phone: phone(), party_size: 2, name: 'Ada', ...body },
      }),
    );
  const joinRaw = (id: string, json: Record<string, unknown>) =>
    call(h.url, 'POST', `/v3/businesses/${id}/waitlist/visits`, { ...as(), json: { phone: phone(), party_size: 2, name: 'Ada', ...json } });
  const onMyWay = (id: string, body: Partial<OnMyWayBody> = {}) =>
    answered(
      sdk().POST('/v3/businesses/{business_id}/waitlist/on-my-way', {
        ...business(id),
        body: { phone: phone(), party_size: 2, name: 'Grace', arrival_range_min: 5, arrival_range_max: 15, ...body },
      }),
    );
  const walkIn = (id: string, party_size = 2) =>
    admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/walk-ins`, { json: { party_size } });
  const visit = (id: string, q = p) => answered(sdk(q).GET('/v3/visits/{visit_id}', { params: { path: { visit_id: id } } }));
  const tick = async (minutes: number) => {
    h.clock.advance(minutes * 60_000);
    await h.pbs.ctx.tasks.runDue();
  };

  it('reads a waitlist: CLOSED outside its hours, ON_MY_WAY open without a wait, OPEN with one; info with defaults', async () => {
    const closedHours = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'No hours' }) })).body.id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${closedHours}`);
    expect((await status(closedHours)).body).toMatchObject({ business_id: closedHours, state: 'CLOSED', closed_reason: 'resto_closed' });
    expect((await call(h.url, 'GET', `/v3/businesses/${closedHours}/waitlist/info`, as())).body).toEqual({
      join_radius: 5,
      join_radius_unit: 'MILES',
      max_party_size: 8,
      seating_areas: {},
    });

    const id = await restaurant({ seating_areas: { bar: 'Bar', patio: 'Patio' } });
    const idle = (await status(id)).body;
    expect(idle).toEqual({
      business_id: id,
      state: 'ON_MY_WAY',
      wait_estimates: {
        '1-2': { est_wait: 0, min_wait: 0, max_wait: 5, wait_range: '0-5' },
        '3-4': { est_wait: 0, min_wait: 0, max_wait: 5, wait_range: '0-5' },
        '5-6': { est_wait: 0, min_wait: 0, max_wait: 5, wait_range: '0-5' },
        '7+': { est_wait: 0, min_wait: 0, wait_range: '0+' },
      },
    });
    expect((await call(h.url, 'GET', `/v3/businesses/${id}/waitlist/info`, as())).body.seating_areas).toEqual({
      bar: 'Bar',
      patio: 'Patio',
    });
    // Three parties of two at the door: the pace seats two of them per 15 minutes.
    for (let i = 0; i < 3; i++) expect((await walkIn(id)).status).toBe(201);
    const busy = (await status(id)).body;
    expect(busy.state).toBe('OPEN');
    expect(busy.wait_estimates['1-2']).toEqual({ est_wait: 30, min_wait: 25, max_wait: 35, wait_range: '25-35' });
    expect(busy.wait_estimates['3-4']).toEqual({ est_wait: 15, min_wait: 10, max_wait: 20, wait_range: '10-20' });
    expect(busy.wait_estimates['7+']).toEqual({ est_wait: 15, min_wait: 10, wait_range: '10+' });
  });

  it('turns its state with the clock while the line stays as it is (the answer kept per snapshot never freezes it)', async () => {
    // Monday 08:00–10:00 in Los Angeles; the harness clock starts at 09:00 there.
    const id = await restaurant({
      hours: [{ hours_type: 'REGULAR', open: [{ day: 0, start: '0800', end: '1000', is_overnight: false }] }],
    });
    expect((await walkIn(id)).status).toBe(201);
    const open = (await status(id)).body;
    expect(open.state).toBe('OPEN');
    h.clock.advance(2 * 3600_000);
    const after = (await status(id)).body;
    expect(after).toEqual({ ...open, state: 'CLOSED', closed_reason: 'resto_closed' });
    h.clock.set(T0);
    expect((await status(id)).body).toEqual(open);
  });

  it('takes its pace from the reservation tables and turn times when asked', async () => {
    // Tables: two (1–2), four (2–4), eight (5–8); turns 90 min (≤ 2), 120 (≤ 6), 150 (7+).
    const inventory = await createRestaurant(h.url, {}, `Inventory ${++n}`);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${inventory.id}`);
    const set = await admin(h.url, 'PUT', `/admin/v1/businesses/${inventory.id}/waitlist`, {
      json: { hours: ALL_DAY, pace: { interval_minutes: 60, from_reservations: true } },
    });
    expect(set.status, set.text).toBe(200);
    // 1-2: two tables × 60 / 90 → 1; 3-4: one × 60 / 120 → 1 (0.5 rounds up); 5-6: one × 60 / 120 → 1; 7+: one × 60 / 150 → 0.
    expect(set.body.pace).toEqual({ interval_minutes: 60, parties_per_interval: { '1-2': 1, '3-4': 1, '5-6': 1, '7+': 0 } });
    const none = await restaurant();
    const refused = await admin(h.url, 'PUT', `/admin/v1/businesses/${none}/waitlist`, { json: { pace: { from_reservations: true } } });
    expect(refused.status).toBe(400);
  });

  it('closes for the reasons of docs/contract/waitlist.md §4.3', async () => {
    const id = await restaurant({ on_my_way: false });
    expect((await status(id)).body).toMatchObject({ state: 'CLOSED', closed_reason: 'no_current_wait' });
    await admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/close`, { json: { reason: 'special_event' } });
    expect((await status(id)).body).toMatchObject({ state: 'CLOSED', closed_reason: 'special_event' });
    await admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/close`);
    expect((await status(id)).body).toMatchObject({ state: 'CLOSED', closed_reason: 'waitlist_closed' });
    expect((await admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/close`, { json: { reason: 'tired' } })).status).toBe(400);
    await admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/open`);
    await admin(h.url, 'PUT', `/admin/v1/businesses/${id}/waitlist`, { json: { remote_entry: false } });
    expect((await status(id)).body).toMatchObject({ state: 'CLOSED', closed_reason: 'remote_entry_disabled' });
  });

  it('joins the line: 201 with Unix-second times; every 422 from its condition; the same token, the same visit', async () => {
    const id = await restaurant({ seating_areas: { patio: 'Patio' }, max_party_size: 6 });
    expectCode(await join(id), 422, 'CURRENTLY_NO_WAIT');
    await walkIn(id);
    const token = `tok-${n}`;
    const number = phone();
    const joined = await join(id, { phone: number, seating_area_preference: 'patio', idempotency_token: token, party_notes: 'high chair' });
    expect(joined.status, joined.text).toBe(201);
    const t = T0 / 1000;
    expect(joined.body).toEqual({
      visit_id: expect.stringMatching(/^[A-Za-z0-9]{22}$/),
      queue_time: t,
      party_size: 2,
      arrive_by_time: t + 10 * 60,
      expected_seating_time_min: t + 10 * 60,
      expected_seating_time_max: t + 20 * 60,
      seating_area_preference: 'patio',
    });
    const again = await join(id, { phone: number, idempotency_token: token });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(joined.body);
    expectCode(await join(id, { phone: number }), 422, 'ALREADY_IN_LINE');
    expectCode(await join(id, { party_size: 7 }), 422, 'PARTY_SIZE_TOO_LARGE');
    expectCode(await join(id, { seating_area_preference: 'rooftop' }), 422, 'INVALID_SEATING_PREFERENCE');
    // The same guest in line elsewhere.
    const elsewhere = await restaurant();
    await walkIn(elsewhere);
    expectCode(await join(elsewhere, { phone: number }), 422, 'SCHEDULE_CONFLICT');
    await admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/close`);
    expectCode(await join(id), 422, 'RESTAURANT_NOT_OPEN');
    await admin(h.url, 'POST', `/admin/v1/businesses/${id}/waitlist/open`);
    await admin(h.url, 'PUT', `/admin/v1/businesses/${id}/waitlist`, { json: { remote_entry: false } });
    expectCode(await join(id), 422, 'REMOTE_ENTRY_DENIED');
    for (const bad of [
      { phone: '4155550100' },
      { party_size: 0 },
      { name: '' },
      { party_size: 'two' },
      { name: 'n'.repeat(101) },
      { party_notes: 'n'.repeat(501) },
      { party_size: 101 },
    ]) {
      expectCode(await joinRaw(id, bad), 400, 'VALIDATION_ERROR');
    }
  });

  it('takes on-my-way visits without a wait: 201, INVALID_ETA, CURRENTLY_HAS_WAIT, the 10th is a CONFLICT, and they expire', async () => {
    const id = await restaurant();
    const made = await onMyWay(id);
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({ visit_id: expect.any(String), party_size: 2, arrive_by_time: T0 / 1000 + 15 * 60 });
    for (const eta of [
      { arrival_range_min: 10, arrival_range_max: 5 },
      { arrival_range_min: 0, arrival_range_max: 31 },
      { arrival_range_min: -1, arrival_range_max: 5 },
    ]) {
      expectCode(await onMyWay(id, eta), 422, 'INVALID_ETA');
    }
    for (let i = 0; i < 8; i++) expect((await onMyWay(id)).status).toBe(201);
    expectCode(await onMyWay(id), 409, 'CONFLICT');
    // On its way, then 15 minutes past its arrive-by time: EXPIRED.
    expect((await visit(made.body.visit_id)).body).toMatchObject({
      state: 'ON_MY_WAY',
      visit_type: 'ON_MY_WAY',
      arrive_by_time: T0 / 1000 + 900,
    });
    await tick(31);
    expect((await visit(made.body.visit_id)).body).toMatchObject({ state: 'EXPIRED', expired_time: expect.any(Number) });
    const busy = await restaurant();
    await walkIn(busy);
    expectCode(await onMyWay(busy), 422, 'CURRENTLY_HAS_WAIT');
    h.clock.set(T0);
  });

  it('moves a visit along the line on the pbs clock: WAITING → NOTIFIED → SEATED, with its times and parties ahead', async () => {
    const id = await restaurant({ pace: { interval_minutes: 10, parties_per_interval: { '1-2': 1 } } });
    await walkIn(id);
    await walkIn(id);
    const mine = (await join(id)).body.visit_id;
    let v = (await visit(mine)).body;
    expect(v).toMatchObject({ state: 'WAITING', visit_type: 'WAITLIST', business_id: id, parties_ahead: 2, name: 'Ada', party_size: 2 });
    expect(v.expected_seating_time_min).toBe(T0 / 1000 + 25 * 60);
    await tick(10);
    expect((await visit(mine)).body.parties_ahead).toBe(1);
    await tick(10);
    v = (await visit(mine)).body;
    expect(v).toMatchObject({ state: 'WAITING', parties_ahead: 0 });
    await tick(10);
    v = (await visit(mine)).body;
    expect(v).toMatchObject({ state: 'NOTIFIED', notified_time: T0 / 1000 + 30 * 60, seated_time: null });
    await tick(10);
    v = (await visit(mine)).body;
    expect(v).toMatchObject({ state: 'SEATED', seated_time: T0 / 1000 + 40 * 60 });
    expectCode(await call(h.url, 'POST', `/v3/visits/${mine}/cancel`, as()), 409, 'VISIT_ALREADY_IN_TERMINAL_STATE');
    h.clock.set(T0);
  });

  it('cancels a visit (204); another partner’s visit is exactly like an unknown one; the restaurant side notifies, seats and marks no-shows', async () => {
    const id = await restaurant({ auto_advance: false });
    await walkIn(id);
    const mine = (await join(id)).body.visit_id;
    const theirs = await visit(mine, other);
    const unknown = await visit('AAAAAAAAAAAAAAAAAAAAAA');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    expect((await call(h.url, 'POST', `/v3/visits/${mine}/cancel`, as(other))).status).toBe(404);
    const canceled = await call(h.url, 'POST', `/v3/visits/${mine}/cancel`, as());
    expect(canceled.status).toBe(204);
    expect(canceled.text).toBe('');
    expect((await visit(mine)).body).toMatchObject({ state: 'CANCELED', canceled_time: T0 / 1000 });
    expectCode(await call(h.url, 'POST', `/v3/visits/${mine}/cancel`, as()), 409, 'VISIT_ALREADY_IN_TERMINAL_STATE');

    const next = (await join(id)).body.visit_id;
    expect((await admin(h.url, 'POST', `/admin/v1/visits/${next}/notify`)).body.state).toBe('NOTIFIED');
    expect((await admin(h.url, 'POST', `/admin/v1/visits/${next}/no-show`)).body.state).toBe('NO_SHOW');
    expect((await admin(h.url, 'POST', `/admin/v1/visits/${next}/seat`)).status).toBe(409);
    // An on-my-way party checks in: it takes the next place in line.
    const quiet = await restaurant();
    const coming = (await onMyWay(quiet)).body.visit_id;
    expect((await admin(h.url, 'POST', `/admin/v1/visits/${coming}/arrive`)).body).toMatchObject({
      state: 'WAITING',
      arrived_time: T0 / 1000,
    });
    expect((await status(quiet)).body.state).toBe('OPEN');
    const queue = (await admin(h.url, 'GET', `/admin/v1/businesses/${quiet}/waitlist/queue`)).body.visits;
    expect(queue.map((x: any) => x.visit_id)).toEqual([coming]);
    // The sandbox clock set back an hour: the party is still expected after it joined, not before.
    h.clock.set(T0 - 3_600_000);
    const [back] = (await admin(h.url, 'GET', `/admin/v1/businesses/${quiet}/waitlist/queue`)).body.visits;
    expect(back.expected_seating_time_min).toBeGreaterThanOrEqual(back.queue_time);
  });

  it('records every visit change as an event for the partner that made it', async () => {
    const id = await restaurant({ auto_advance: false });
    await walkIn(id);
    const mine = (await join(id)).body.visit_id;
    await admin(h.url, 'POST', `/admin/v1/visits/${mine}/notify`);
    await admin(h.url, 'POST', `/admin/v1/visits/${mine}/seat`);
    const events = await h.database.db
      .selectFrom('domain_events')
      .select(['type', 'partner_id', 'payload'])
      .where('business_id', '=', id)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute();
    expect(events.map((e) => [e.type, e.partner_id, JSON.parse(e.payload).change])).toEqual([
      ['WAITLIST_VISIT_UPDATED_EVENT', p.partner.id, 'JOINED'],
      ['WAITLIST_VISIT_UPDATED_EVENT', p.partner.id, 'NOTIFIED'],
      ['WAITLIST_VISIT_UPDATED_EVENT', p.partner.id, 'SEATED'],
    ]);
  });

  it('delivers visit changes to the partner’s endpoint as the opt-in WAITLIST_VISIT_UPDATED_EVENT', async () => {
    const hooked = await createPartner(h.url, ['waitlist', 'webhooks'], `Hooked line ${++n}`);
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing();
    const url = await receiver.start();
    try {
      await admin(h.url, 'PUT', `/admin/v1/partners/${hooked.partner.id}/webhook`, {
        json: { url, client_id: 'line', event_types: ['WAITLIST_VISIT_UPDATED_EVENT'] },
      });
      expect((await admin(h.url, 'POST', `/admin/v1/partners/${hooked.partner.id}/webhook/verify`)).body.status).toBe('verified');
      const id = await restaurant({ auto_advance: false });
      await admin(h.url, 'PUT', `/admin/v1/partners/${hooked.partner.id}/businesses/${id}`);
      await walkIn(id);
      const mine = (await join(id, {}, hooked)).body.visit_id;
      await call(h.url, 'POST', `/v3/visits/${mine}/cancel`, as(hooked));
      await h.pbs.deliverWebhooks();
      const updates = receiver
        .posts()
        .map((post) => JSON.parse(post.body))
        .filter((u) => u.data.id === id)
        .map((u) => u.data.updates[0]);
      expect(updates.map((u) => [u.event_type, u.visit_id, u.change, u.state]).sort()).toEqual([
        ['WAITLIST_VISIT_UPDATED_EVENT', mine, 'CANCELED', 'CANCELED'],
        ['WAITLIST_VISIT_UPDATED_EVENT', mine, 'JOINED', 'WAITING'],
      ]);
    } finally {
      await receiver.stop();
    }
  });

  it('gives 500 concurrent joins distinct places; one phone twice is one visit and ALREADY_IN_LINE', async () => {
    const id = await restaurant({ max_party_size: 20 });
    await walkIn(id);
    const joins = await Promise.all(Array.from({ length: 500 }, () => join(id)));
    for (const r of joins) expect(r.status, r.text).toBe(201);
    const rows = await h.database.db.selectFrom('waitlist_visits').select('position').where('business_id', '=', id).execute();
    expect(rows).toHaveLength(501);
    expect(new Set(rows.map((r) => r.position)).size).toBe(501);
    const same = phone();
    const twice = await Promise.all([join(id, { phone: same }), join(id, { phone: same })]);
    expect(twice.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(twice.find((r) => r.status === 422)?.error?.code).toBe('ALREADY_IN_LINE');
  });

  it('lets exactly 9 of 10 concurrent on-my-way visits in; the 10th is a CONFLICT', async () => {
    const id = await restaurant();
    const results = await Promise.all(Array.from({ length: 10 }, () => onMyWay(id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(9);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.error?.code])).toEqual([[409, 'CONFLICT']]);
  });

  it('forgets visits 30 days after they ended', async () => {
    const id = await restaurant();
    const gone = (await onMyWay(id)).body.visit_id;
    await call(h.url, 'POST', `/v3/visits/${gone}/cancel`, as());
    h.clock.advance(29 * 86_400_000);
    await h.pbs.ctx.tasks.runDue();
    expect((await visit(gone)).status).toBe(200);
    h.clock.advance(2 * 86_400_000);
    await h.pbs.ctx.tasks.runDue();
    expect((await visit(gone)).status).toBe(404);
  });
});
