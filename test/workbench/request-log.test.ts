import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logsCommand } from '../../src/commands/logs.js';
import { admin, call, createPartner, dialects, startPbs, T0, type Harness, type TestPartner } from '../support/harness.js';
import { createRestaurant, guest, hold } from '../support/restaurant.js';

const DAY = '2031-05-07';

/** Issue 26: every partner request recorded, redacted, filtered, purged, and tailed. */
describe.each(dialects)('the request log on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let restaurantId: string;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_REQUEST_LOG_MAX_ROWS_PER_PARTNER: '1000', PBS_REQUEST_LOG_RETENTION_HOURS: '24' } });
    p = await createPartner(h.url, ['reservations', 'advertising']);
    restaurantId = (await createRestaurant(h.url)).id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${restaurantId}`);
  });
  afterAll(() => h.close());

  const list = async (query: string) => {
    await h.pbs.services.requestLog.flush();
    const r = await admin(h.url, 'GET', `/admin/v1/request-log?partner_id=${p.partner.id}&${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body.entries as Array<Record<string, any>>;
  };

  it('records a booking with its operation, status, ids and bodies, never a secret and never the guest', async () => {
    const key = p.apiKey.api_key;
    const openings = await call(h.url, 'GET', `/v3/bookings/${restaurantId}/openings?date=${DAY}&time=19:00&covers=2`, { token: key });
    expect(openings.status).toBe(200);
    const held = await hold(h.url, key, restaurantId, { date: DAY, time: '19:00', covers: '2', unique_id: 'device-1' });
    expect(held.status, held.text).toBe(200);
    const reserved = await call(h.url, 'POST', `/v3/bookings/${restaurantId}/reservations`, {
      token: key,
      form: { ...guest, date: DAY, time: '19:00', covers: '2', unique_id: 'device-1', hold_id: held.body.hold_id },
      headers: { 'idempotency-key': `book-${dialect}` },
    });
    expect(reserved.status, reserved.text).toBe(200);
    // Basic credentials on another interface, and a refused request.
    await call(h.url, 'GET', '/programs/v1', { basic: [p.basic.username, p.basic.password] });
    const missing = await hold(h.url, key, restaurantId, { date: DAY, time: '19:00', covers: '2' });
    expect(missing.status).toBe(400);

    const entries = await list('limit=10');
    expect(entries.map((e) => e.operation)).toEqual([
      'POST /v3/bookings/{business_id}/holds',
      'GET /programs/v1',
      'POST /v3/bookings/{business_id}/reservations',
      'POST /v3/bookings/{business_id}/holds',
      'GET /v3/bookings/{business_id}/openings',
    ]);
    const [refused, programs, booking, , read] = entries;
    expect(read).toMatchObject({
      partner_id: p.partner.id,
      credential: { kind: 'api_key', id: p.apiKey.id },
      interface: 'reservations',
      method: 'GET',
      path: `/v3/bookings/${restaurantId}/openings`,
      query: `date=${DAY}&time=19:00&covers=2`,
      status: 200,
      error_code: null,
      at: new Date(T0).toISOString(),
      request_id: openings.headers.get('x-request-id'),
    });
    expect(refused).toMatchObject({ status: 400, error_code: missing.body.error.code });
    expect(programs.credential).toEqual({ kind: 'basic', id: p.basic.id });
    expect(booking).toMatchObject({ idempotency_key: `book-${dialect}`, status: 200 });

    // One entry whole: what was sent and answered, the guest masked.
    const whole = (await admin(h.url, 'GET', `/admin/v1/request-log/${booking.id}`)).body;
    expect(JSON.parse(whole.request_body)).toMatchObject({ first_name: '[masked]', phone: '[masked]', email: '[masked]', covers: '2' });
    expect(JSON.parse(whole.response_body)).toMatchObject({ reservation_id: reserved.body.reservation_id });
    // The event the booking caused, linked by the request's id (its message id is the webhook-id header partners see).
    expect(whole.caused).toEqual([
      expect.objectContaining({ event_type: 'RESERVATION_CREATED_EVENT', business_id: restaurantId, deliveries: [] }),
    ]);
    expect(whole.caused[0].message_id).toBe(`msg_${whole.caused[0].event_id}`);
    const holdEntry = entries[3];
    expect((await admin(h.url, 'GET', `/admin/v1/request-log/${holdEntry.id}`)).body.caused).toEqual([]);

    // Nothing stored anywhere holds a secret or the guest.
    const rows = JSON.stringify(await h.database.db.selectFrom('request_log').selectAll().execute());
    for (const secret of [key, p.basic.password, guest.phone, guest.email, guest.last_name]) expect(rows).not.toContain(secret);
  });

  it('filters by status class, status, operation, error code, request id and Idempotency-Key', async () => {
    expect((await list('status=4xx')).every((e) => e.status >= 400 && e.status < 500)).toBe(true);
    expect((await list('status=400')).length).toBeGreaterThan(0);
    const code = (await list('status=4xx'))[0].error_code;
    expect(code).toBeTruthy();
    expect((await list(`error_code=${code}`)).every((e) => e.error_code === code)).toBe(true);
    const holds = await list(`operation=${encodeURIComponent('POST /v3/bookings/{business_id}/holds')}`);
    expect(holds.length).toBe(2);
    expect(await list(`request_id=${holds[0].request_id}`)).toHaveLength(1);
    expect(await list(`idempotency_key=book-${dialect}`)).toHaveLength(1);
    // Paging back and tailing forward from an id.
    const [newest, older] = await list('limit=2');
    expect((await list(`before_id=${newest.id}&limit=1`))[0].id).toBe(older.id);
    expect((await list(`after_id=${older.id}`)).map((e) => e.id)).toEqual([newest.id]);
    expect((await admin(h.url, 'GET', '/admin/v1/request-log/999999999')).status).toBe(404);
    expect((await admin(h.url, 'GET', '/admin/v1/request-log?status=4x')).status).toBe(400);
    expect((await call(h.url, 'GET', '/admin/v1/request-log')).status).toBe(401);
  });

  it('names the partner of a refused call (an interface it does not have)', async () => {
    const r = await call(h.url, 'GET', '/v3/businesses/engagement?business_ids=x', { token: p.apiKey.api_key });
    expect(r.status).toBe(403);
    const [entry] = await list('status=403&limit=1');
    expect(entry).toMatchObject({ partner_id: p.partner.id, error_code: 'PARTNER_ENDPOINT_DISABLED', interface: 'engagement' });
  });

  it('groups errors by code and operation with counts, first and last seen, and a hint', async () => {
    h.clock.advance(60_000);
    await hold(h.url, p.apiKey.api_key, restaurantId, { date: DAY, time: '19:00', covers: '2' });
    await h.pbs.services.requestLog.flush();
    const r = await admin(h.url, 'GET', `/admin/v1/request-log/errors?partner_id=${p.partner.id}`);
    expect(r.status, r.text).toBe(200);
    const holds = r.body.errors.find((g: { operation: string }) => g.operation === 'POST /v3/bookings/{business_id}/holds');
    expect(holds).toMatchObject({
      status: 400,
      count: 2,
      first_seen: new Date(T0).toISOString(),
      last_seen: new Date(T0 + 60_000).toISOString(),
    });
    expect(holds.hint).toEqual(expect.any(String));
    const disabled = r.body.errors.find((g: { error_code: string }) => g.error_code === 'PARTNER_ENDPOINT_DISABLED');
    expect(disabled).toMatchObject({ count: 1, operation: 'GET /v3/businesses/engagement', hint: expect.stringContaining('enable') });
    // Another partner's errors are not among them; a period leaves out what is outside it.
    const later = await admin(
      h.url,
      'GET',
      `/admin/v1/request-log/errors?partner_id=${p.partner.id}&from=${new Date(T0 + 1).toISOString()}`,
    );
    expect(later.body.errors).toEqual([expect.objectContaining({ count: 1, first_seen: new Date(T0 + 60_000).toISOString() })]);
    expect((await admin(h.url, 'GET', '/admin/v1/request-log/errors?partner_id=nobody')).body.errors).toEqual([]);
  });

  it('records requests that did not authenticate without a partner, and keeps no token', async () => {
    await call(h.url, 'GET', `/v3/bookings/${restaurantId}/openings?date=${DAY}&time=19:00&covers=2`, { token: 'not-a-key' });
    await h.pbs.services.requestLog.flush();
    const r = await admin(h.url, 'GET', '/admin/v1/request-log?status=401&limit=1');
    expect(r.body.entries[0]).toMatchObject({ partner_id: null, credential: null, status: 401, error_code: 'TOKEN_INVALID' });
  });

  it('streams new entries to `pbs logs tail`, filtered', async () => {
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (lines.push(chunk), true)) as typeof process.stdout.write;
    try {
      const [newest] = await list('limit=1');
      const tail = logsCommand(h.pbs.services.requestLog, ['tail'], {
        partner: p.partner.id,
        status: '2xx',
        json: '',
        count: '2',
        after: String(newest.id),
      });
      await call(h.url, 'GET', `/v3/bookings/${restaurantId}/openings?date=${DAY}&time=18:00&covers=2`, { token: p.apiKey.api_key });
      await hold(h.url, p.apiKey.api_key, restaurantId, { date: DAY, time: '18:00', covers: 'x' });
      await call(h.url, 'GET', `/v3/bookings/${restaurantId}/openings?date=${DAY}&time=20:00&covers=2`, { token: p.apiKey.api_key });
      await tail;
    } finally {
      process.stdout.write = write;
    }
    const printed = lines.map((l) => JSON.parse(l));
    expect(printed.map((e) => [e.status, e.query])).toEqual([
      [200, `date=${DAY}&time=18:00&covers=2`],
      [200, `date=${DAY}&time=20:00&covers=2`],
    ]);
  });

  it('purges entries past their age and past a partner’s row budget', async () => {
    const log = h.pbs.services.requestLog;
    await log.flush();
    const before = (await list('limit=500')).length;
    expect(before).toBeGreaterThan(3);
    h.clock.advance(25 * 3_600_000);
    await call(h.url, 'GET', `/v3/bookings/${restaurantId}/openings?date=${DAY}&time=19:00&covers=2`, { token: p.apiKey.api_key });
    await log.flush();
    expect(await log.purge()).toBeGreaterThanOrEqual(before);
    expect(await list('limit=500')).toHaveLength(1);
    // The row budget: the newest N stay.
    const store = log.store();
    expect(await store.keepNewest(p.partner.id, 0)).toBe(1);
    expect(await list('limit=500')).toHaveLength(0);
  });
});
