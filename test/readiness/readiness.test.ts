import { createPbsClient, formBody, ok, PbsError, type PbsClient } from '@pbs/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  call,
  createPartner,
  dialects,
  expectCode,
  portalSession,
  startPbs,
  type Harness,
  type TestPartner,
} from '../support/harness.js';
import { createRestaurant, guest, hold, reserve } from '../support/restaurant.js';
import { eventually } from '../support/wait.js';
import { Receiver } from '../support/receiver.js';
import { milestonesOf, refutedOf, reportOf, type Drill, type Report } from './reports.js';

const DAY = '2031-05-07';
/** Another day, so the bad clients' holds do not take the good client's times. */
const OTHER_DAY = '2031-05-06';
/** The restaurant asks a credit card for every party on this day (test/support/restaurant.ts). */
const CARD_DAY = '2031-05-10';
const HOLDS = 'POST /v3/bookings/{business_id}/holds';
const RESERVATIONS = 'POST /v3/bookings/{business_id}/reservations';
const STATUS = 'GET /v3/bookings/reservation/{reservation_id}/status';

/** Issue 45: milestones turned green by a client that follows the contract, and red, each alone, by one that does not. */
describe.each(dialects)('launch readiness on %s', (dialect) => {
  let h: Harness;
  let restaurant: string;

  const receivers: Receiver[] = [];

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_WEBHOOK_TIMEOUT_MS: '2000', PBS_WEBHOOK_POLL_MS: '50', PBS_WEBHOOK_RETRY_SCHEDULE: '3600' } });
    restaurant = (await createRestaurant(h.url)).id;
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await h.close();
  });

  const report = (partner: TestPartner) => reportOf(h.url, partner);
  const milestones = milestonesOf;
  const refuted = refutedOf;
  const addFault = async (partner: TestPartner, rule: Record<string, unknown>) => {
    const r = await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/faults`, { json: rule });
    expect(r.status, r.text).toBe(201);
  };
  const sdk = (partner: TestPartner): PbsClient => createPbsClient({ baseUrl: h.url, auth: { apiKey: partner.apiKey.api_key } });

  it('turns every reservations and resilience milestone green for a client that follows the contract (the SDK)', async () => {
    const good = await createPartner(h.url, ['reservations'], 'Good Client');
    const pbs = sdk(good);
    const path = { business_id: restaurant };
    await ok(
      pbs.GET('/v3/businesses/search', {
        params: { query: { location: 'San Francisco', reservation_date: DAY, reservation_time: '19:00', reservation_covers: 2 } },
      }),
    );
    // A day whose times need a credit card: the guest goes to the url; nothing is held.
    const card = await ok(
      pbs.GET('/v3/bookings/{business_id}/openings', { params: { path, query: { date: CARD_DAY, time: '19:00', covers: 2 } } }),
    );
    expect(card.reservation_times.some((d) => d.times.some((t) => t.credit_card_required))).toBe(true);
    await ok(pbs.GET('/v3/bookings/{business_id}/openings', { params: { path, query: { date: DAY, time: '19:00', covers: 2 } } }));

    // pbs fails the first hold with a 503 asking for a second: the SDK waits it, and retries with the same key.
    await addFault(good, { operation: HOLDS, status: 503, retry_after_seconds: 1, count: 1 });
    const form = { date: DAY, time: '19:00', covers: 2, unique_id: 'good-guest' };
    const held = await ok(pbs.POST('/v3/bookings/{business_id}/holds', { params: { path }, ...formBody(form) }));
    const reservation = await ok(
      pbs.POST('/v3/bookings/{business_id}/reservations', { params: { path }, ...formBody({ ...form, ...guest, hold_id: held.hold_id! }) }),
    );
    // Over the rate limit once: the SDK waits Retry-After before asking again.
    await addFault(good, { operation: STATUS, status: 429, error_code: 'TOO_MANY_REQUESTS_PER_SECOND', retry_after_seconds: 1, count: 1 });
    const id = { reservation_id: reservation.reservation_id };
    await ok(pbs.GET('/v3/bookings/reservation/{reservation_id}/status', { params: { path: id } }));
    await ok(pbs.POST('/v3/bookings/reservation/{reservation_id}/cancel', { params: { path: id } }));

    // A hold that expires under the client: it holds again rather than retrying the reservation.
    const late = { ...form, time: '20:00' };
    const stale = await ok(pbs.POST('/v3/bookings/{business_id}/holds', { params: { path }, ...formBody(late) }));
    h.clock.advance(6 * 60_000);
    const expired = await ok(
      pbs.POST('/v3/bookings/{business_id}/reservations', {
        params: { path },
        ...formBody({ ...late, ...guest, hold_id: stale.hold_id! }),
      }),
    ).catch((error: unknown) => error);
    expect(expired instanceof PbsError && expired.code).toBe('HOLD_NOT_FOUND');
    const again = await ok(pbs.POST('/v3/bookings/{business_id}/holds', { params: { path }, ...formBody(late) }));
    await ok(
      pbs.POST('/v3/bookings/{business_id}/reservations', {
        params: { path },
        ...formBody({ ...late, ...guest, hold_id: again.hold_id! }),
      }),
    );

    // The storm watch after the last error closes after a few quiet seconds.
    const final = await eventually(
      () => report(good),
      (r) => milestones(r).get('resilience.no_storm')?.status === 'green',
      'the storm watch closed',
    );
    const byInterface = new Map(final.interfaces.map((i) => [i.interface, i]));
    for (const name of ['reservations', 'resilience']) {
      const reds = byInterface.get(name)!.milestones.filter((m) => m.status !== 'green');
      expect(reds, `${name}: ${JSON.stringify(reds)}`).toEqual([]);
      expect(byInterface.get(name)!.score).toBe(100);
    }
    // Webhooks are red until an endpoint is registered: the report says so, with the hint.
    expect(milestones(final).get('webhooks.verified')).toMatchObject({ status: 'red', problem: 'No webhook endpoint registered.' });
    expect(final.ready).toBe(false);
    // The evidence is the request log's: each id names a request of this partner.
    const proof = milestones(final).get('reservations.hold_then_reserve')!.evidence;
    expect(proof.length).toBeGreaterThan(0);
    // What readiness keeps of the calls holds no guest data (bodies are only compared, by digest).
    const kept = await h.database.db
      .selectFrom('readiness_progress')
      .select('progress')
      .where('partner_id', '=', good.partner.id)
      .executeTakeFirstOrThrow();
    for (const personal of [guest.last_name, guest.phone, guest.email]) expect(kept.progress).not.toContain(personal);
    const logged = await admin(h.url, 'GET', `/admin/v1/request-log?request_id=${proof[0]}`);
    expect(logged.body.entries).toMatchObject([{ partner_id: good.partner.id, operation: RESERVATIONS, status: 200 }]);
  });

  describe('a client that breaks one rule turns that milestone red, with what went wrong and the hint', () => {
    const slot = (time: string) => ({ date: OTHER_DAY, time, covers: '2', unique_id: `bad-${time}` });

    it('a reservation without a hold', async () => {
      const bad = await createPartner(h.url, ['reservations']);
      const r = await reserve(h.url, bad.apiKey.api_key, restaurant, { ...slot('17:30'), hold_id: 'made-up' });
      expect(r.status).toBeGreaterThanOrEqual(400);
      const reds = refuted(await report(bad));
      expect(reds.map((m) => m.id)).toEqual(['reservations.hold_first']);
      expect(reds[0].problem).toBe('a reservation with a hold_id holds never answered you');
      expect(reds[0].hint).toContain('Reserve only with a hold_id');
    });

    it('an immediate retry after a 503 with Retry-After, and without an Idempotency-Key', async () => {
      const bad = await createPartner(h.url, ['reservations']);
      await addFault(bad, { operation: HOLDS, status: 503, retry_after_seconds: 30, count: 1 });
      expectCode(await hold(h.url, bad.apiKey.api_key, restaurant, slot('17:45')), 503, 'SERVICE_UNAVAILABLE');
      expect((await hold(h.url, bad.apiKey.api_key, restaurant, slot('17:45'))).status).toBe(200);
      const reds = refuted(await report(bad));
      expect(reds.map((m) => m.id).sort()).toEqual(['resilience.idempotency_key', 'resilience.retry_after']);
      expect(reds.find((m) => m.id === 'resilience.retry_after')!.problem).toMatch(
        /^retried \d+ ms after a 503 whose Retry-After asked for 30000 ms$/,
      );
      expect(reds.find((m) => m.id === 'resilience.idempotency_key')!.problem).toBe(
        'a POST retried after a failure, with no Idempotency-Key on either try',
      );
    });

    it('a retry with another Idempotency-Key', async () => {
      const bad = await createPartner(h.url, ['reservations']);
      await addFault(bad, { operation: HOLDS, status: 500, error_code: 'INTERNAL_ERROR', count: 1 });
      const withKey = (key: string) =>
        call(h.url, 'POST', `/v3/bookings/${restaurant}/holds`, {
          token: bad.apiKey.api_key,
          form: slot('18:00'),
          headers: { 'idempotency-key': key },
        });
      expect((await withKey('first')).status).toBe(500);
      expect((await withKey('second')).status).toBe(200);
      const reds = refuted(await report(bad));
      expect(reds.map((m) => [m.id, m.problem])).toEqual([
        ['resilience.idempotency_key', 'a POST retried after a failure with another Idempotency-Key'],
      ]);
    });

    it('a retry storm', async () => {
      const bad = await createPartner(h.url, ['reservations']);
      await addFault(bad, { operation: STATUS, status: 503, count: 30 });
      // Immediately, in a loop: the rule counts calls within one second of real time, so a slow
      // machine may spread them; the loop goes on until the milestone is refuted or 30 calls.
      for (let i = 0; i < 30; i++) {
        await call(h.url, 'GET', '/v3/bookings/reservation/none/status', { token: bad.apiKey.api_key });
        if (refuted(await report(bad)).length > 0) break;
      }
      expect(refuted(await report(bad)).map((m) => m.id)).toEqual(['resilience.no_storm']);
    });

    it('a reservation retried with an expired hold, and a held time that needed a credit card', async () => {
      const bad = await createPartner(h.url, ['reservations']);
      const late = { ...slot('18:15'), date: '2031-05-09' };
      const held = await hold(h.url, bad.apiKey.api_key, restaurant, late);
      expect(held.status).toBe(200);
      h.clock.advance(6 * 60_000);
      for (let i = 0; i < 2; i++)
        expectCode(await reserve(h.url, bad.apiKey.api_key, restaurant, { ...late, hold_id: held.body.hold_id }), 404, 'HOLD_NOT_FOUND');
      expect(refuted(await report(bad)).map((m) => [m.id, m.problem])).toEqual([
        ['reservations.expired_hold', 'retried the reservation with a hold that had expired, instead of holding again'],
      ]);
      const bad2 = await createPartner(h.url, ['reservations']);
      const openings = await call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${CARD_DAY}&time=19:00&covers=2`, {
        token: bad2.apiKey.api_key,
      });
      const time = openings.body.reservation_times.find((d: { date: string }) => d.date === CARD_DAY).times[0].time;
      await hold(h.url, bad2.apiKey.api_key, restaurant, { date: CARD_DAY, time, covers: '2', unique_id: 'card' });
      const reds = refuted(await report(bad2));
      expect(reds.map((m) => m.id)).toEqual(['reservations.credit_card']);
      expect(reds[0].hint).toContain('send the guest to the time’s url');
    });
  });

  it('answers Markdown, the same in the portal, starts over on request, and keeps who approved a partner', async () => {
    const partner = await createPartner(h.url, ['reservations', 'waitlist'], 'Approved Partner');
    await reserve(h.url, partner.apiKey.api_key, restaurant, {
      ...{ date: DAY, time: '19:30', covers: '2', unique_id: 'x' },
      hold_id: 'none',
    });
    const before = await report(partner);
    expect(before.interfaces.map((i) => i.interface)).toEqual(['reservations', 'resilience', 'webhooks', 'waitlist']);
    const markdown = await call(h.url, 'GET', `/admin/v1/partners/${partner.partner.id}/readiness?format=markdown`, {
      headers: { authorization: 'Bearer test-admin-token' },
    });
    expect(markdown.headers.get('content-type')).toContain('text/markdown');
    expect(markdown.text).toContain('# Launch readiness: Approved Partner');
    expect(markdown.text).toContain('| ❌ | Never reserves without a hold | a reservation with a hold_id holds never answered you');

    const session = await portalSession(h, partner.partner.id);
    const own = await call(h.url, 'GET', '/portal/v1/readiness', { headers: { cookie: session.cookie } });
    expect(own.status).toBe(200);
    expect(own.body.interfaces).toEqual(before.interfaces);

    const reset = await call(h.url, 'POST', '/portal/v1/readiness/reset', { headers: { cookie: session.cookie, origin: session.origin } });
    expect(reset.status, reset.text).toBe(200);
    expect(refuted(reset.body)).toEqual([]);
    expect(reset.body.since).not.toBeNull();

    const approved = await admin(h.url, 'PUT', `/admin/v1/partners/${partner.partner.id}/launch-approval`, {
      json: { note: 'Reviewed the drills' },
    });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ approved_by: 'bootstrap token', note: 'Reviewed the drills' });
    expect((await report(partner)).approval).toMatchObject({ note: 'Reviewed the drills' });
    const audit = await admin(h.url, 'GET', `/admin/v1/audit?partner_id=${partner.partner.id}`);
    expect(audit.body.records.map((r: { action: string }) => r.action)).toContain('PUT /admin/v1/partners/:partner_id/launch-approval');
    expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${partner.partner.id}/launch-approval`)).status).toBe(204);
    expect((await report(partner)).approval).toBeNull();

    expectCode(await admin(h.url, 'GET', '/admin/v1/partners/no-such-partner/readiness'), 404, 'NOT_FOUND');
    expectCode(await admin(h.url, 'GET', `/admin/v1/partners/${partner.partner.id}/readiness?format=pdf`), 400, 'VALIDATION_ERROR');
  });

  describe('drills', () => {
    const startDrill = async (partner: TestPartner, body: Record<string, unknown>) => {
      const r = await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/readiness/drills`, { json: body });
      expect(r.status, r.text).toBe(201);
      return r.body as Drill;
    };
    const drillNow = async (id: string) => (await admin(h.url, 'GET', `/admin/v1/readiness/drills/${id}`)).body as Drill;

    it('passes a client that waits Retry-After and retries with the same key; fails one that does not; then gives back its rules', async () => {
      const good = await createPartner(h.url, ['reservations']);
      const drill = await startDrill(good, { kind: 'retry_after', operation: HOLDS });
      expect(drill.state).toBe('running');
      // The SDK meets two 503s with Retry-After: 2 and waits each out.
      const path = { business_id: restaurant };
      await ok(
        sdk(good).POST('/v3/bookings/{business_id}/holds', {
          params: { path },
          ...formBody({ date: '2031-05-11', time: '19:00', covers: 2, unique_id: 'drill' }),
        }),
      );
      const passed = await drillNow(drill.id);
      expect(passed.state).toBe('passed');
      expect(passed.milestones.find((m) => m.id === 'resilience.retry_after')!.outcome).toBe('shown');
      // Closed: its fault rule is gone, so nothing of the drill is left acting on the partner.
      expect((await admin(h.url, 'GET', `/admin/v1/faults?partner_id=${good.partner.id}`)).body.faults).toEqual([]);

      const bad = await createPartner(h.url, ['reservations']);
      const failing = await startDrill(bad, { kind: 'retry_after', operation: HOLDS });
      const form = { date: '2031-05-11', time: '20:00', covers: '2', unique_id: 'drill-bad' };
      for (let i = 0; i < 3; i++) await hold(h.url, bad.apiKey.api_key, restaurant, form);
      const failed = await drillNow(failing.id);
      expect(failed.state).toBe('failed');
      expect(failed.milestones.find((m) => m.id === 'resilience.retry_after')).toMatchObject({ outcome: 'refuted' });
      // A second drill of the same kind while one runs is refused; another partner's calls are untouched.
      const again = await startDrill(bad, { kind: 'rate_limit' });
      expectCode(
        await admin(h.url, 'POST', `/admin/v1/partners/${bad.partner.id}/readiness/drills`, { json: { kind: 'rate_limit' } }),
        409,
        'CONFLICT',
      );
      const bystander = await createPartner(h.url, ['reservations']);
      expect(
        (
          await call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`, {
            token: bystander.apiKey.api_key,
          })
        ).status,
      ).toBe(200);
      const stopped = await admin(h.url, 'POST', `/admin/v1/readiness/drills/${again.id}/stop`);
      expect(stopped.body.state).toBe('incomplete');
    });

    it('a hold expiring under the client: passed by holding again', async () => {
      const partner = await createPartner(h.url, ['reservations']);
      const form = { date: '2031-05-12', time: '19:00', covers: '2', unique_id: 'expiry' };
      const first = await hold(h.url, partner.apiKey.api_key, restaurant, form);
      const drill = await startDrill(partner, { kind: 'hold_expiry' });
      expectCode(await reserve(h.url, partner.apiKey.api_key, restaurant, { ...form, hold_id: first.body.hold_id }), 404, 'HOLD_NOT_FOUND');
      const second = await hold(h.url, partner.apiKey.api_key, restaurant, form);
      expect(second.status, second.text).toBe(200);
      expect((await drillNow(drill.id)).state).toBe('passed');
    });

    it('webhook duplicates: passed by a receiver that answers every copy, failed by one too slow to answer in time', async () => {
      const hooked = async (behaviour: Receiver['behaviour']) => {
        const partner = await createPartner(h.url, ['reservations', 'webhooks']);
        const receiver = new Receiver();
        receiver.behaviour = behaviour;
        receivers.push(receiver);
        const put = await admin(h.url, 'PUT', `/admin/v1/partners/${partner.partner.id}/webhook`, {
          json: { url: await receiver.start(), client_id: partner.partner.id },
        });
        expect(put.status, put.text).toBe(200);
        expect((await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/webhook/verify`)).status).toBe(200);
        return partner;
      };
      const good = await hooked(Receiver.echoing(200));
      const drill = await startDrill(good, { kind: 'webhook_duplicates' });
      // The events become deliveries, whose copies go out after random delays of up to 2 s of pbs
      // time; once all are answered, the drill gives the receiver 5 s (pbs) to act on them.
      await h.pbs.deliverWebhooks();
      h.clock.advance(3000);
      const passed = await eventually(
        async () => (await h.pbs.deliverWebhooks(), h.clock.advance(1000), drillNow(drill.id)),
        (d) => d.state !== 'running',
        'the drill graded',
      );
      expect(passed.state).toBe('passed');
      const report = (await admin(h.url, 'GET', `/admin/v1/partners/${good.partner.id}/readiness`)).body as Report;
      expect(milestones(report).get('webhooks.duplicates')).toMatchObject({ status: 'green' });
      // The drill gave the endpoint back as it was: deliveries single again.
      expect((await admin(h.url, 'GET', `/admin/v1/partners/${good.partner.id}/webhook`)).body.duplicate_and_reorder).toBe(false);

      const verify = Receiver.echoing(200);
      const slow = await hooked((req, res) => (req.method === 'GET' ? verify(req, res) : setTimeout(() => verify(req, res), 3000)));
      const slowDrill = await startDrill(slow, { kind: 'webhook_duplicates' });
      await h.pbs.deliverWebhooks();
      h.clock.advance(3000);
      const failed = await eventually(
        async () => (await h.pbs.deliverWebhooks(), drillNow(slowDrill.id)),
        (d) => d.state !== 'running',
        'the drill graded',
      );
      expect(failed.state).toBe('failed');
      expect(failed.milestones[0].problem).toContain('not answered 2xx within 10 s');
    });

    it('keeps a partner’s drills bounded: finished ones past the newest 50 are forgotten', async () => {
      const partner = await createPartner(h.url, ['reservations']);
      for (let i = 0; i < 55; i++) {
        const drill = await startDrill(partner, { kind: 'rate_limit' });
        expect((await admin(h.url, 'POST', `/admin/v1/readiness/drills/${drill.id}/stop`)).status).toBe(200);
      }
      const kept = await h.database.db.selectFrom('readiness_drills').select('id').where('partner_id', '=', partner.partner.id).execute();
      expect(kept.length).toBe(50);
      expect((await admin(h.url, 'GET', `/admin/v1/partners/${partner.partner.id}/readiness/drills`)).body.drills).toHaveLength(50);
    });

    it('is refused in production, and validates what it is given', async () => {
      const partner = await createPartner(h.url, ['reservations']);
      expectCode(
        await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/readiness/drills`, { json: { kind: 'earthquake' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectCode(
        await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/readiness/drills`, {
          json: { kind: 'hold_expiry', operation: STATUS },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectCode(
        await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/readiness/drills`, { json: { kind: 'webhook_duplicates' } }),
        409,
        'CONFLICT',
      );
      expectCode(await admin(h.url, 'GET', '/admin/v1/readiness/drills/nope'), 404, 'NOT_FOUND');
      const token = 'a'.repeat(32);
      const production = await startPbs(dialect, { env: { PBS_SANDBOX: '0', PBS_ADMIN_TOKEN: token, PBS_SECRET_KEY: 'b'.repeat(64) } });
      try {
        const asOperator = { authorization: `Bearer ${token}` };
        const created = await call(production.url, 'POST', '/admin/v1/partners', {
          headers: asOperator,
          json: { name: 'Live', interfaces: ['reservations'] },
        });
        expect(created.status, created.text).toBe(201);
        const refused = await call(production.url, 'POST', `/admin/v1/partners/${created.body.id}/readiness/drills`, {
          headers: asOperator,
          json: { kind: 'retry_after' },
        });
        expectCode(refused, 403, 'AUTHORIZATION_ERROR');
        // Production credentials wait for the approval for launch, unless overridden (and recorded).
        const issue = (body: Record<string, unknown>) =>
          call(production.url, 'POST', `/admin/v1/partners/${created.body.id}/credentials`, { headers: asOperator, json: body });
        expectCode(await issue({ kind: 'api_key' }), 409, 'CONFLICT');
        expect((await issue({ kind: 'api_key', override_readiness: true })).status).toBe(201);
        const trail = await call(production.url, 'GET', `/admin/v1/audit?partner_id=${created.body.id}`, { headers: asOperator });
        expect(trail.body.records[0]).toMatchObject({
          action: 'POST /admin/v1/partners/:partner_id/credentials',
          details: { after: { override_readiness: true } },
        });
        const approval = await call(production.url, 'PUT', `/admin/v1/partners/${created.body.id}/launch-approval`, {
          headers: asOperator,
          json: {},
        });
        expect(approval.status, approval.text).toBe(200);
        expect((await issue({ kind: 'api_key' })).status).toBe(201);
      } finally {
        await production.close();
      }
    });
  });
});
