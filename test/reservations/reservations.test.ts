import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, T0, type Harness } from '../support/harness.js';
import { createRestaurant, guest, hold, reserve, restaurantSettings } from '../support/restaurant.js';

const DAY = '2031-05-07'; // a Wednesday, two days after T0

describe.each(dialects)('reservations on %s', (dialect) => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  let biz: { id: string; alias: string };
  let n = 0;
  const uid = () => `device-${++n}`;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
    otherKey = (await createPartner(h.url, ['reservations'], 'Other')).apiKey.api_key;
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    h.clock.set(T0);
    biz = await createRestaurant(h.url, {}, `Bistro ${++n}`);
  });

  const expectError = (r: { status: number; body: any }, status: number, code: string) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error.code).toBe(code);
  };

  describe('operator inventory', () => {
    it('validates settings and imports them in bulk, all or nothing', async () => {
      const bad = await admin(h.url, 'PUT', `/admin/v1/businesses/${biz.id}/reservation-settings`, {
        json: { ...restaurantSettings, party_size: { min: 5, max: 2 } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.field).toBe('party_size');
      const noCatchAll = await admin(h.url, 'PUT', `/admin/v1/businesses/${biz.id}/reservation-settings`, {
        json: { ...restaurantSettings, turn_times: [{ max_party: 4, minutes: 90 }] },
      });
      expect(noCatchAll.status).toBe(400);
      const other = await createRestaurant(h.url, {}, `Import Target ${n}`);
      const lines = [
        JSON.stringify({ business_id: other.id, settings: { ...restaurantSettings, notes: 'imported' } }),
        JSON.stringify({ business_id: 'nope', settings: restaurantSettings }),
      ];
      const rejected = await admin(h.url, 'POST', '/admin/v1/reservation-settings/import', {
        body: lines.join('\n'),
        contentType: 'application/x-ndjson',
      });
      expect(rejected.status).toBe(400);
      expect(rejected.body.error.description).toContain('line 2');
      expect((await admin(h.url, 'GET', `/admin/v1/businesses/${other.id}/reservation-settings`)).body.notes).not.toBe('imported');
      const accepted = await admin(h.url, 'POST', '/admin/v1/reservation-settings/import', {
        body: lines[0],
        contentType: 'application/x-ndjson',
      });
      expect(accepted.body).toEqual({ imported: 1 });
      expect((await admin(h.url, 'GET', `/admin/v1/businesses/${other.id}/reservation-settings`)).body.notes).toBe('imported');
    });
  });

  describe('openings', () => {
    it('lists open times for the day before, the day and 2 days after, within ±60 minutes', async () => {
      const r = await call(h.url, 'GET', `/v3/bookings/${biz.id}/openings?date=${DAY}&time=19:00&covers=2`, { token: key });
      expect(r.status).toBe(200);
      expect(r.body.reservation_times.map((d: { date: string }) => d.date)).toEqual([
        '2031-05-06',
        '2031-05-07',
        '2031-05-08',
        '2031-05-09',
      ]);
      const times = ['18:00', '18:15', '18:30', '18:45', '19:00', '19:15', '19:30', '19:45', '20:00'];
      expect(r.body.reservation_times[1].times).toEqual(times.map((time) => ({ time, credit_card_required: false })));
      expect(r.body.reservation_times[2].times).toEqual([]); // closed date
      expect(r.body).not.toHaveProperty('covers_range');
    });

    it('flags credit-card times with a url, answers covers_range when asked, and accepts the alias', async () => {
      const r = await call(h.url, 'GET', `/v3/bookings/${biz.alias}/openings?date=${DAY}&time=20:30&covers=7&get_covers_range=true`, {
        token: key,
      });
      expect(r.status).toBe(200);
      const day = r.body.reservation_times[1].times;
      expect(day.map((t: { time: string }) => t.time)).toEqual(['19:30', '19:45', '20:00', '20:15', '20:30', '20:45', '21:00']);
      for (const t of day) {
        expect(t.credit_card_required).toBe(true);
        expect(t.url).toMatch(new RegExp(`/reservations/${biz.alias}/reserve/${DAY}/\\d{4}/7/$`));
      }
      expect(r.body.covers_range).toEqual({ min_party_size: 1, max_party_size: 8 });
      const page = await call(h.url, 'GET', new URL(day[0].url).pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain('credit card');
    });

    it('drops times whose only fitting table is taken, and never offers past or too-soon times', async () => {
      expect((await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '6', unique_id: uid() })).status).toBe(200);
      const r = await call(h.url, 'GET', `/v3/bookings/${biz.id}/openings?date=${DAY}&time=19:00&covers=5`, { token: key });
      // The 8-top, the only table for 5, is held 19:00–21:00: every start from 18:00 to 20:00 would overlap.
      expect(r.body.reservation_times[1].times.map((t: { time: string }) => t.time)).toEqual([]);
      h.clock.set(Date.parse('2031-05-07T01:30:00Z')); // 18:30 local on 2031-05-06
      const today = await call(h.url, 'GET', `/v3/bookings/${biz.id}/openings?date=2031-05-06&time=19:00&covers=2`, { token: key });
      expect(today.body.reservation_times[1].times[0].time).toBe('19:30'); // 60 minutes' notice
      expect(today.body.reservation_times[0].times).toEqual([]); // yesterday
    });

    it('answers the spec validation errors', async () => {
      const q = (query: string) => call(h.url, 'GET', `/v3/bookings/${biz.id}/openings?${query}`, { token: key });
      expectError(await q(`date=2031/05/07&time=19:00&covers=2`), 400, 'DATE_TIME_VALIDATION_ERROR');
      expectError(await q(`date=2031-02-30&time=19:00&covers=2`), 400, 'DATE_TIME_VALIDATION_ERROR');
      const badTime = await q(`date=${DAY}&time=7pm&covers=2`);
      expectError(badTime, 400, 'DATE_TIME_VALIDATION_ERROR');
      expect(badTime.body.error.description).toBe('Invalid format, expected format is %H:%M');
      const small = await q(`date=${DAY}&time=19:00&covers=0`);
      expectError(small, 400, 'TOO_SMALL_VALIDATION_ERROR');
      expect(small.body.error.description).toBe('Number too small: 0');
      const big = await q(`date=${DAY}&time=19:00&covers=11`);
      expectError(big, 400, 'TOO_LARGE_VALIDATION_ERROR');
      expect(big.body.error.description).toBe('Number too big: 11');
      // However a number outside 1–10 is written, it is too big or too small; no number is a bad request.
      for (const huge of ['1e309', '99999999999999999999', '12.5', '1e3'])
        expectError(await q(`date=${DAY}&time=19:00&covers=${huge}`), 400, 'TOO_LARGE_VALIDATION_ERROR');
      for (const tiny of ['-1e309', '0.5', '-3'])
        expectError(await q(`date=${DAY}&time=19:00&covers=${tiny}`), 400, 'TOO_SMALL_VALIDATION_ERROR');
      for (const junk of ['two', '2.5', '0x3', 'Infinity'])
        expectError(await q(`date=${DAY}&time=19:00&covers=${junk}`), 400, 'VALIDATION_ERROR');
      const search = await call(
        h.url,
        'GET',
        `/v3/businesses/search?location=San%20Francisco&reservation_date=${DAY}&reservation_time=19:00&reservation_covers=1e309`,
        { token: key },
      );
      expectError(search, 400, 'TOO_LARGE_VALIDATION_ERROR');
      expectError(await q(`date=${DAY}&time=19:00`), 400, 'VALIDATION_ERROR');
      expectError(
        await call(h.url, 'GET', `/v3/bookings/nope/openings?date=${DAY}&time=19:00&covers=2`, { token: key }),
        404,
        'BUSINESS_NOT_FOUND',
      );
      const plain = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: `No Bookings ${n}` }) })).body;
      expectError(
        await call(h.url, 'GET', `/v3/bookings/${plain.id}/openings?date=${DAY}&time=19:00&covers=2`, { token: key }),
        404,
        'DOES_NOT_TAKE_RESERVATIONS',
      );
    });
  });

  describe('holds', () => {
    it('holds a slot for 5 minutes and answers every Hold field', async () => {
      const r = await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: uid() });
      expect(r.status).toBe(200);
      const start = Date.parse('2031-05-08T02:00:00Z'); // 19:00 PDT on 2031-05-07
      expect(r.body).toEqual({
        hold_id: expect.stringMatching(/^[A-Za-z0-9]{22}$/),
        expires_at: (T0 + 300_000) / 1000,
        cancellation_policy: 'Please cancel at least 2 hours ahead.',
        credit_card_hold: false,
        is_editable: false,
        last_cancellation_date: (start - 2 * 3600_000) / 1000,
        notes: 'Patio seating is first come, first served.',
        reserve_url: expect.stringContaining(`/reservations/${biz.alias}/checkout/${DAY}/1900/2?hold_id=`),
      });
    });

    it('answers a credit-card slot with hold_id null and a reserve_url', async () => {
      const r = await hold(h.url, key, biz.id, { date: '2031-05-10', time: '19:00', covers: '2', unique_id: uid() });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        hold_id: null,
        credit_card_hold: true,
        reserve_url: expect.stringContaining(`/reserve/2031-05-10/1900/2/`),
      });
    });

    it('refuses query parameters and non-form bodies', async () => {
      const viaQuery = await call(h.url, 'POST', `/v3/bookings/${biz.id}/holds?date=${DAY}&time=19:00&covers=2&unique_id=x`, {
        token: key,
      });
      expectError(viaQuery, 400, 'INVALID_RESERVATION_PARAMETER');
      const viaJson = await call(h.url, 'POST', `/v3/bookings/${biz.id}/holds`, {
        token: key,
        json: { date: DAY, time: '19:00', covers: 2, unique_id: 'x' },
      });
      expectError(viaJson, 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2' }), 400, 'INVALID_RESERVATION_PARAMETER');
    });

    it('answers the validation, range and availability errors', async () => {
      const f = (form: Record<string, string>) =>
        hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id: uid(), ...form });
      expectError(await f({ date: '07/05/2031' }), 400, 'DATE_TIME_VALIDATION_ERROR');
      expectError(await f({ time: '25:00' }), 400, 'DATE_TIME_VALIDATION_ERROR');
      expectError(await f({ covers: '0' }), 400, 'TOO_SMALL_VALIDATION_ERROR');
      expectError(await f({ covers: '12' }), 400, 'TOO_LARGE_VALIDATION_ERROR');
      const range = await f({ covers: '9' });
      expectError(range, 400, 'COVERS_VALUE_OUT_OF_RANGE');
      expect(range.body.error.description).toBe('This restaurant only accepts online reservations between 1 and 8 people');
      expectError(await f({ date: '2031-05-01' }), 400, 'INVALID_DATE_TIME_RANGE'); // past
      expectError(await f({ date: '2031-05-05', time: '09:30' }), 400, 'INVALID_DATE_TIME_RANGE'); // too soon
      expectError(await f({ date: '2031-07-01' }), 400, 'INVALID_DATE_TIME_RANGE'); // beyond 30 days
      expectError(await f({ date: '2031-05-08' }), 400, 'INVALID_DATE_TIME_RANGE'); // closed
      expectError(await f({ time: '15:00' }), 400, 'INVALID_DATE_TIME_RANGE'); // outside service hours
      expectError(await f({ time: '19:10' }), 400, 'INVALID_DATE_TIME_RANGE'); // off the grid
      expectError(await hold(h.url, key, 'nope', { date: DAY, time: '19:00', covers: '2', unique_id: 'x' }), 404, 'BUSINESS_NOT_FOUND');
      const plain = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: `Plain ${n}` }) })).body;
      await admin(h.url, 'PUT', `/admin/v1/businesses/${plain.id}/reservation-settings`, {
        json: { tables: [], service_hours: [], accepts_reservations: false },
      });
      expectError(
        await hold(h.url, key, plain.id, { date: DAY, time: '19:00', covers: '2', unique_id: 'x' }),
        404,
        'DOES_NOT_TAKE_RESERVATIONS',
      );
    });

    it('answers HOLD_SLOT_NOT_AVAILABLE when no fitting table is free, and frees it when the hold expires', async () => {
      expect((await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '6', unique_id: uid() })).status).toBe(200);
      const taken = await hold(h.url, key, biz.id, { date: DAY, time: '20:00', covers: '5', unique_id: uid() });
      expectError(taken, 409, 'HOLD_SLOT_NOT_AVAILABLE');
      h.clock.advance(5 * 60_000);
      expect((await hold(h.url, key, biz.id, { date: DAY, time: '20:00', covers: '5', unique_id: uid() })).status).toBe(200);
    });

    it('keeps one hold per unique_id: a new hold drops the earlier one', async () => {
      const device = uid();
      const first = await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '6', unique_id: device });
      const second = await hold(h.url, key, biz.id, { date: DAY, time: '17:00', covers: '1', unique_id: device });
      expect(second.status).toBe(200);
      // The 8-top is free again at 19:00 for someone else…
      expect((await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '6', unique_id: uid() })).status).toBe(200);
      // …and the first hold can no longer be used.
      expectError(
        await reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '6', unique_id: device, hold_id: first.body.hold_id }),
        404,
        'HOLD_NOT_FOUND',
      );
    });
  });

  describe('reservations', () => {
    const holdFor = async (form: Record<string, string> = {}) => {
      const unique_id = uid();
      const r = await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', unique_id, ...form });
      expect(r.status, r.text).toBe(200);
      return { unique_id, hold_id: r.body.hold_id as string };
    };

    it('turns a hold into a reservation, consumes the hold and records the event', async () => {
      const held = await holdFor();
      const r = await reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', ...held, notes: 'window seat' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        reservation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        confirmation_url: expect.stringContaining(`/reservations/${biz.alias}/confirmed/`),
        notes: 'Patio seating is first come, first served.',
      });
      expectError(await reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', ...held }), 404, 'HOLD_NOT_FOUND');
      const events = await h.database.db.selectFrom('domain_events').selectAll().where('business_id', '=', biz.id).execute();
      expect(events.map((e) => e.type)).toEqual(['RESERVATION_CREATED_EVENT']);
      expect(JSON.parse(events[0].payload)).toMatchObject({
        reservation_id: r.body.reservation_id,
        date: DAY,
        time: '19:00',
        covers: 2,
        status: 'ACTIVE',
      });

      const page = await call(h.url, 'GET', new URL(r.body.confirmation_url).pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Ada Lovelace');
      expect(page.text).toContain('Cancel this reservation');
    });

    it('answers the parameter errors of reservations', async () => {
      const held = await holdFor();
      const f = (form: Record<string, string>) => reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', ...held, ...form });
      expectError(await f({ time: '19:10' }), 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await f({ date: '2031-05-01' }), 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await f({ date: '2031-07-01' }), 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await f({ covers: '9' }), 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await f({ email: '' }), 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await f({ phone: '1'.repeat(33) }), 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await f({ phone: ' 14155550123' }), 400, 'INVALID_RESERVATION_PARAMETER'); // a '+' sent unencoded
      expectError(await f({ date: '2031-5-7' }), 400, 'DATE_TIME_VALIDATION_ERROR');
      expectError(await f({ covers: '0' }), 400, 'TOO_SMALL_VALIDATION_ERROR');
      expectError(await f({ covers: '11' }), 400, 'TOO_LARGE_VALIDATION_ERROR');
      expectError(await f({ hold_id: 'not a hold' }), 400, 'INVALID_HOLD_ID');
      expectError(await f({ hold_id: 'A'.repeat(22) }), 404, 'HOLD_NOT_FOUND');
      expectError(await f({ time: '19:15' }), 400, 'RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS');
      expectError(await f({ covers: '1' }), 400, 'RESERVATIONS_PARAMS_DONT_MATCH_HOLDS_PARAMS');
      const viaQuery = await call(h.url, 'POST', `/v3/bookings/${biz.id}/reservations?hold_id=${held.hold_id}`, {
        token: key,
        form: { ...guest },
      });
      expectError(viaQuery, 400, 'INVALID_RESERVATION_PARAMETER');
      expectError(await reserve(h.url, key, 'nope', { date: DAY, time: '19:00', covers: '2', ...held }), 404, 'BUSINESS_NOT_FOUND');
      const plain = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: `Walk-ins Only ${n}` }) })).body;
      expectError(
        await reserve(h.url, key, plain.id, { date: DAY, time: '19:00', covers: '2', ...held }),
        404,
        'DOES_NOT_TAKE_RESERVATIONS',
      );
      // The hold is still good after all of that.
      expect((await f({})).status).toBe(200);
    });

    it('does not let another partner use a hold', async () => {
      const held = await holdFor();
      expectError(await reserve(h.url, otherKey, biz.id, { date: DAY, time: '19:00', covers: '2', ...held }), 404, 'HOLD_NOT_FOUND');
    });

    it('answers HOLD_NOT_FOUND for an expired hold', async () => {
      const held = await holdFor();
      h.clock.advance(5 * 60_000);
      expectError(await reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', ...held }), 404, 'HOLD_NOT_FOUND');
    });

    it('answers CREDIT_CARD_REQUIRED (402) when the restaurant requires a card, keeping the hold', async () => {
      const held = await holdFor();
      await admin(h.url, 'PUT', `/admin/v1/businesses/${biz.id}/reservation-settings`, {
        json: {
          ...(await admin(h.url, 'GET', `/admin/v1/businesses/${biz.id}/reservation-settings`)).body,
          credit_card: { min_party: 2, dates: [] },
        },
      });
      expectError(await reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '2', ...held }), 402, 'CREDIT_CARD_REQUIRED');
    });

    it('answers DUPLICATE_RESERVATION for the same guest within 3 hours', async () => {
      const device = uid();
      const a = await hold(h.url, key, biz.id, { date: DAY, time: '17:00', covers: '2', unique_id: device });
      expect(
        (await reserve(h.url, key, biz.id, { date: DAY, time: '17:00', covers: '2', unique_id: device, hold_id: a.body.hold_id })).status,
      ).toBe(200);
      const b = await hold(h.url, key, biz.id, { date: DAY, time: '19:45', covers: '2', unique_id: device });
      expectError(
        await reserve(h.url, key, biz.id, { date: DAY, time: '19:45', covers: '2', unique_id: device, hold_id: b.body.hold_id }),
        409,
        'DUPLICATE_RESERVATION',
      );
      const c = await hold(h.url, key, biz.id, { date: '2031-05-09', time: '19:45', covers: '2', unique_id: device });
      expect(
        (await reserve(h.url, key, biz.id, { date: '2031-05-09', time: '19:45', covers: '2', unique_id: device, hold_id: c.body.hold_id }))
          .status,
      ).toBe(200);
    });

    it('answers RESERVATION_SLOT_NO_LONGER_AVAILABLE when the held table is gone and no other fits', async () => {
      const held = await holdFor({ covers: '6' });
      const settings = (await admin(h.url, 'GET', `/admin/v1/businesses/${biz.id}/reservation-settings`)).body;
      await admin(h.url, 'PUT', `/admin/v1/businesses/${biz.id}/reservation-settings`, {
        json: { ...settings, tables: settings.tables.filter((t: { name: string }) => t.name !== 'eight') },
      });
      expectError(
        await reserve(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '6', ...held }),
        409,
        'RESERVATION_SLOT_NO_LONGER_AVAILABLE',
      );
    });
    it('answers RESERVATION_SLOT_NO_LONGER_AVAILABLE when the date closed, the hours or the notice changed after the hold', async () => {
      const settings = (await admin(h.url, 'GET', `/admin/v1/businesses/${biz.id}/reservation-settings`)).body;
      const changes: Array<[string, Record<string, unknown>]> = [
        ['17:00', { closed_dates: [...settings.closed_dates, DAY] }],
        ['19:00', { service_hours: settings.service_hours.map((s: Record<string, unknown>) => ({ ...s, start: '20:00' })) }],
        ['19:30', { min_notice_minutes: 60 * 24 * 3 }],
      ];
      for (const [time, change] of changes) {
        const held = await holdFor({ time });
        expect(
          (await admin(h.url, 'PUT', `/admin/v1/businesses/${biz.id}/reservation-settings`, { json: { ...settings, ...change } })).status,
        ).toBe(200);
        const refused = await reserve(h.url, key, biz.id, { date: DAY, time, covers: '2', ...held });
        expectError(refused, 409, 'RESERVATION_SLOT_NO_LONGER_AVAILABLE');
        await admin(h.url, 'PUT', `/admin/v1/businesses/${biz.id}/reservation-settings`, { json: settings });
      }
      // A hold that waited its minutes under unchanged settings is still good, notice and all.
      const held = await holdFor({ time: '20:30' });
      h.clock.advance(4 * 60_000);
      expect((await reserve(h.url, key, biz.id, { date: DAY, time: '20:30', covers: '2', ...held })).status).toBe(200);
    });
  });

  describe('status and cancel', () => {
    const book = async (time = '19:00') => {
      const unique_id = uid();
      const held = await hold(h.url, key, biz.id, { date: DAY, time, covers: '3', unique_id });
      const r = await reserve(h.url, key, biz.id, { date: DAY, time, covers: '3', unique_id, hold_id: held.body.hold_id });
      expect(r.status).toBe(200);
      return r.body.reservation_id as string;
    };

    it('reports an active reservation with HH:MM:SS, and only to its partner', async () => {
      const id = await book();
      const r = await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: key });
      expect(r.body).toEqual({ active: true, date: DAY, time: '19:00:00', covers: 3 });
      expectError(await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: otherKey }), 400, 'INVALID_RESERVATION_ID');
      expectError(await call(h.url, 'GET', `/v3/bookings/reservation/not-an-id/status`, { token: key }), 400, 'INVALID_RESERVATION_ID');
      expectError(
        await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status?covers=0`, { token: key }),
        400,
        'TOO_SMALL_VALIDATION_ERROR',
      );
    });

    it('cancels once; status then reports RESERVATION_CANCELED; a second cancel conflicts', async () => {
      const id = await book();
      const first = await call(h.url, 'POST', `/v3/bookings/reservation/${id}/cancel`, { token: key, json: {} });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({});
      expectError(await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: key }), 400, 'RESERVATION_CANCELED');
      expectError(await call(h.url, 'POST', `/v3/bookings/reservation/${id}/cancel`, { token: key }), 409, 'RESERVATION_ALREADY_CANCELED');
      expectError(await call(h.url, 'POST', `/v3/bookings/reservation/${id}/cancel`, { token: otherKey }), 404, 'INVALID_RESERVATION_ID');
      expectError(await call(h.url, 'POST', `/v3/bookings/reservation/nope/cancel`, { token: key }), 404, 'INVALID_RESERVATION_ID');
      const events = await h.database.db
        .selectFrom('domain_events')
        .select(['type', 'payload'])
        .where('business_id', '=', biz.id)
        .orderBy('occurred_at')
        .execute();
      expect(events.map((e) => e.type)).toEqual(['RESERVATION_CREATED_EVENT', 'RESERVATION_CANCELED_BY_GUEST_EVENT']);
      expect(JSON.parse(events[1].payload)).toMatchObject({ status: 'CANCELED', source: 'PARTNER_API' });
      // The table is free again.
      expect((await hold(h.url, key, biz.id, { date: DAY, time: '19:00', covers: '3', unique_id: uid() })).status).toBe(200);
    });

    it('refuses to cancel past the cutoff or after the start (RESERVATION_CANCEL_CONFLICT)', async () => {
      const id = await book();
      h.clock.set(Date.parse('2031-05-08T00:30:00Z')); // 17:30 local: inside the 2-hour cutoff
      expectError(await call(h.url, 'POST', `/v3/bookings/reservation/${id}/cancel`, { token: key }), 409, 'RESERVATION_CANCEL_CONFLICT');
      h.clock.set(Date.parse('2031-05-08T02:30:00Z')); // after the start
      expectError(await call(h.url, 'POST', `/v3/bookings/reservation/${id}/cancel`, { token: key }), 409, 'RESERVATION_CANCEL_CONFLICT');
      expect((await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: key })).body.active).toBe(true);
      h.clock.set(Date.parse('2031-05-08T05:00:00Z')); // after the party left
      expect((await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: key })).body.active).toBe(false);
    });

    it('lets the restaurant cancel (operator API) and the guest cancel from the confirmation page', async () => {
      const byRestaurant = await book('17:00');
      const r = await admin(h.url, 'POST', `/admin/v1/reservations/${byRestaurant}/cancel`);
      expect(r.body).toEqual({ reservation_id: byRestaurant, status: 'canceled', canceled_by: 'restaurant' });

      const byGuest = await book('20:30');
      const pagePath = `/reservations/${biz.alias}/confirmed/${byGuest}`;
      const before = await call(h.url, 'GET', pagePath);
      const token = /name="token" value="([^"]+)"/.exec(before.text)![1];
      const post = await fetch(`${h.url}${pagePath}/cancel`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ token }) });
      expect(post.status).toBe(303);
      const page = await call(h.url, 'GET', pagePath);
      expect(page.text).toContain('canceled by the guest');
      expectError(await call(h.url, 'GET', `/v3/bookings/reservation/${byGuest}/status`, { token: key }), 400, 'RESERVATION_CANCELED');
    });
  });
});

describe('phone numbers on reservations', () => {
  it('accepts E.164 and written national numbers, refuses a corrupted one', async () => {
    const { isPhoneNumber } = await import('../../src/reservations/params.js');
    for (const ok of ['+14155550123', '+442071838750', '(415) 555-0123', '415.555.0123', '4155550123'])
      expect(isPhoneNumber(ok), ok).toBe(true);
    for (const bad of [' 14155550123', '+1 ', 'call me', '+1415555012345678', '12345', '+', '', '415-555-0123 ext 7'])
      expect(isPhoneNumber(bad), bad).toBe(false);
  });
});
