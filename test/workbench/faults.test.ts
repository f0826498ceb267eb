import { createPbsClient, ok } from '@pbs/sdk';
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
import { createRestaurant, hold } from '../support/restaurant.js';
import { eventually } from '../support/wait.js';
import { errorHints, INJECTED_HINT } from '../../src/workbench/error-hints.js';
import { MAX_LIVE_RULES } from '../../src/workbench/faults.js';

const DAY = '2031-05-07';
const HOLDS = 'POST /v3/bookings/{business_id}/holds';
const OPENINGS = 'GET /v3/bookings/{business_id}/openings';

/** Issue 26 "Faults on demand": rules make matching calls fail, wait or drop, and change nothing. */
describe.each(dialects)('faults on demand on %s', (dialect) => {
  let h: Harness;
  let p: TestPartner;
  let other: TestPartner;
  let restaurant: string;

  /** The process log, as JSON lines. */
  const processLog: Array<{ level: number; msg: string; [key: string]: unknown }> = [];

  beforeAll(async () => {
    h = await startPbs(dialect, {
      env: { PBS_LOG_LEVEL: 'info', PBS_LOG_REQUESTS: '0' },
      logStream: { write: (line) => void processLog.push(JSON.parse(line)) },
    });
    p = await createPartner(h.url, ['reservations']);
    other = await createPartner(h.url, ['reservations']);
    restaurant = (await createRestaurant(h.url)).id;
  });
  afterAll(() => h.close());

  const addFault = async (rule: Record<string, unknown>, partner = p) => {
    const r = await admin(h.url, 'POST', `/admin/v1/partners/${partner.partner.id}/faults`, { json: rule });
    expect(r.status, r.text).toBe(201);
    return r.body as { id: string };
  };
  const slot = { date: DAY, time: '19:00', covers: '2', unique_id: 'fault-guest' };
  const holdsOf = async () => (await h.database.db.selectFrom('holds').select('id').where('business_id', '=', restaurant).execute()).length;

  it('answers the next N matching calls with the chosen error, naming the rule, changing nothing', async () => {
    const rule = await addFault({ operation: HOLDS, status: 503, error_code: 'SERVICE_UNAVAILABLE', retry_after_seconds: 2, count: 2 });
    const before = await holdsOf();
    for (let i = 0; i < 2; i++) {
      const r = await hold(h.url, p.apiKey.api_key, restaurant, slot);
      expectCode(r, 503, 'SERVICE_UNAVAILABLE');
      expect(r.headers.get('pbs-fault-injected')).toBe(rule.id);
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.body.error.description).toContain(rule.id);
    }
    expect(await holdsOf()).toBe(before);
    // Used up: the third call is pbs's own answer.
    expect((await hold(h.url, p.apiKey.api_key, restaurant, slot)).status).toBe(200);
    expect((await admin(h.url, 'GET', `/admin/v1/faults?partner_id=${p.partner.id}`)).body.faults).toEqual([]);
    // The request log says which rule answered.
    await h.pbs.services.requestLog.flush();
    const logged = (await admin(h.url, 'GET', `/admin/v1/request-log?partner_id=${p.partner.id}&status=503`)).body.entries;
    expect(logged.map((e: { fault_rule: string }) => e.fault_rule)).toEqual([rule.id, rule.id]);
  });

  it('says an injected answer was injected, never a failure of pbs: hint, process log, request log', async () => {
    const outage = await addFault({ operation: HOLDS, status: 503, error_code: 'SERVICE_UNAVAILABLE', count: 1 });
    const crash = await addFault({ operation: OPENINGS, status: 500, error_code: 'INTERNAL_ERROR', count: 1 });
    const openings = () =>
      call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`, { token: p.apiKey.api_key });
    const logFrom = processLog.length;
    expectCode(await hold(h.url, p.apiKey.api_key, restaurant, slot), 503, 'SERVICE_UNAVAILABLE');
    expectCode(await openings(), 500, 'INTERNAL_ERROR');
    // A rule that only delays: the API's own error answer is not the rule's.
    await addFault({ operation: HOLDS, action: 'latency', latency_ms: 1, count: 1 });
    const ownError = await hold(h.url, p.apiKey.api_key, restaurant, { ...slot, covers: '0' });
    expect(ownError.status).toBe(400);
    expect(ownError.headers.get('pbs-fault-injected')).not.toBeNull();

    // The process log: an info line per injected answer, no error and no stack trace.
    const lines = processLog.slice(logFrom);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'answered by a fault rule').map((l) => [l.faultRule, l.code])).toEqual([
      [outage.id, 'SERVICE_UNAVAILABLE'],
      [crash.id, 'INTERNAL_ERROR'],
    ]);

    // The request log marks the rule's answers, and only those.
    await h.pbs.services.requestLog.flush();
    const entries = (await admin(h.url, 'GET', `/admin/v1/request-log?partner_id=${p.partner.id}&limit=3`)).body.entries;
    expect(entries.map((e: any) => [e.status, e.fault_rule, e.injected])).toEqual([
      [400, null, false],
      [500, crash.id, true],
      [503, outage.id, true],
    ]);
    // Errors explained: injected answers grouped apart, with a hint that says so.
    const groups = (await admin(h.url, 'GET', `/admin/v1/request-log/errors?partner_id=${p.partner.id}`)).body.errors;
    const group = (code: string) => groups.find((g: any) => g.error_code === code);
    for (const code of ['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']) {
      expect(group(code)).toMatchObject({ injected: true, hint: INJECTED_HINT });
      expect(group(code).hint).not.toMatch(/database|fault in pbs/);
    }
    const own = groups.find((g: any) => !g.injected && g.status === 400);
    expect(own.hint).toBe(errorHints[own.error_code as keyof typeof errorHints]);
  });

  it("lets the SDK's retry ride out an injected 503 with Retry-After", async () => {
    await addFault({ operation: OPENINGS, status: 503, retry_after_seconds: 1, count: 1 });
    const waits: number[] = [];
    const client = createPbsClient({ baseUrl: h.url, auth: { apiKey: p.apiKey.api_key }, sleep: async (ms) => void waits.push(ms) });
    const answer = await ok(
      client.GET('/v3/bookings/{business_id}/openings', {
        params: { path: { business_id: restaurant }, query: { date: DAY, time: '19:00', covers: 2 } },
      }),
    );
    expect(answer.reservation_times.length).toBeGreaterThan(0);
    expect(waits).toEqual([1000]);
  });

  it('matches one business only when asked, delays, and drops the connection', async () => {
    const elsewhere = (await createRestaurant(h.url, {}, 'Elsewhere')).id;
    const rule = await addFault({ operation: OPENINGS, business_id: elsewhere, action: 'latency', latency_ms: 50, count: 1 });
    const plain = await call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`, {
      token: p.apiKey.api_key,
    });
    expect(plain.headers.get('pbs-fault-injected')).toBeNull();
    const slow = await call(h.url, 'GET', `/v3/bookings/${elsewhere}/openings?date=${DAY}&time=19:00&covers=2`, {
      token: p.apiKey.api_key,
    });
    expect(slow.status).toBe(200);
    expect(slow.headers.get('pbs-fault-injected')).toBe(rule.id);
    const dropping = await addFault({ operation: OPENINGS, action: 'drop', count: 1 });
    await expect(
      call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`, { token: p.apiKey.api_key }),
    ).rejects.toThrow();
    // A dropped call has no answer, but the request log still has the call and the rule.
    await eventually(
      async () => {
        await h.pbs.services.requestLog.flush();
        const path = `/admin/v1/request-log?partner_id=${p.partner.id}&operation=${encodeURIComponent(OPENINGS)}`;
        return (await admin(h.url, 'GET', path)).body.entries as Array<{ fault_rule: string | null; status: number; error_code: unknown }>;
      },
      // nginx's "444 No Response", for the same thing.
      (logged) => logged.some((e) => e.fault_rule === dropping.id && e.status === 444 && e.error_code === null),
      'the dropped call in the request log',
    );
    expect(
      (await call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`, { token: p.apiKey.api_key })).status,
    ).toBe(200);
  });

  it('ends a rule at its expiry, removes it, and refuses a rule it cannot use', async () => {
    const rule = await addFault({ operation: OPENINGS, status: 500, expires_in_seconds: 60 }, other);
    const openings = () =>
      call(h.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`, { token: other.apiKey.api_key });
    expectCode(await openings(), 500, 'INTERNAL_ERROR');
    h.clock.advance(61_000);
    expect((await openings()).status).toBe(200);
    expect((await admin(h.url, 'DELETE', `/admin/v1/faults/${rule.id}`)).status).toBe(204);
    for (const [rule, field] of [
      [{ operation: 'GET /v3/nothing/here' }, 'operation'],
      [{ operation: 'GET /admin/v1/faults' }, 'operation'],
      [{ operation: OPENINGS, action: 'explode' }, 'action'],
      [{ operation: OPENINGS, status: 200 }, 'status'],
      [{ operation: OPENINGS, error_code: 'NOPE' }, 'error_code'],
      [{ operation: OPENINGS, percent: 0 }, 'percent'],
    ] as const) {
      const r = await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/faults`, { json: rule });
      expectCode(r, 400, 'VALIDATION_ERROR');
      expect(r.body.error.field).toBe(field);
    }
    expectCode(await admin(h.url, 'DELETE', '/admin/v1/faults/nope'), 404, 'NOT_FOUND');
  });

  it('lets a partner manage its own rules in the portal, and no other partner’s', async () => {
    const headers = await portalSession(h, p.partner.id);
    const added = await call(h.url, 'POST', '/portal/v1/faults', { headers, json: { operation: HOLDS, status: 429, count: 1 } });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({ partner_id: p.partner.id, error_code: 'TOO_MANY_REQUESTS_PER_SECOND', remaining: 1 });
    expect((await call(h.url, 'GET', '/portal/v1/faults', { headers })).body.faults.map((f: { id: string }) => f.id)).toEqual([
      added.body.id,
    ]);
    const theirs = await addFault({ operation: HOLDS, status: 500, count: 5 }, other);
    expectCode(await call(h.url, 'DELETE', `/portal/v1/faults/${theirs.id}`, { headers }), 404, 'NOT_FOUND');
    expect((await call(h.url, 'DELETE', `/portal/v1/faults/${added.body.id}`, { headers })).status).toBe(204);
    expect((await admin(h.url, 'DELETE', `/admin/v1/faults/${theirs.id}`)).status).toBe(204);
  });

  // Issue 39 §2: 100,000 rules once left a server without an answer for over ten minutes.
  it(`keeps a partner to ${MAX_LIVE_RULES} live rules, counted under a lock, and frees a place when one goes`, async () => {
    const capped = await createPartner(h.url, ['reservations'], 'Capped');
    const ruleFor = (i: number) => ({ operation: OPENINGS, business_id: `nowhere-${i}`, status: 500 });
    for (let i = 0; i < MAX_LIVE_RULES - 5; i++) await addFault(ruleFor(i), capped);
    // Ten at once for the last five places.
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admin(h.url, 'POST', `/admin/v1/partners/${capped.partner.id}/faults`, { json: ruleFor(1000 + i) }),
      ),
    );
    expect(racing.filter((r) => r.status === 201)).toHaveLength(5);
    for (const refused of racing.filter((r) => r.status !== 201)) expectCode(refused, 403, 'QUOTA_EXCEEDED');
    const live = (await admin(h.url, 'GET', `/admin/v1/faults?partner_id=${capped.partner.id}`)).body.faults as Array<{ id: string }>;
    expect(live).toHaveLength(MAX_LIVE_RULES);
    // The partner's own portal is held to the same number.
    const headers = await portalSession(h, capped.partner.id);
    expectCode(await call(h.url, 'POST', '/portal/v1/faults', { headers, json: ruleFor(2000) }), 403, 'QUOTA_EXCEEDED');
    // Another partner is not.
    const elsewhere = await addFault({ operation: OPENINGS, business_id: 'nowhere', status: 500 }, other);
    expect((await admin(h.url, 'DELETE', `/admin/v1/faults/${elsewhere.id}`)).status).toBe(204);
    // An ended rule frees its place.
    expect((await admin(h.url, 'DELETE', `/admin/v1/faults/${live[0].id}`)).status).toBe(204);
    await addFault(ruleFor(3000), capped);
    for (const rule of (await admin(h.url, 'GET', `/admin/v1/faults?partner_id=${capped.partner.id}`)).body.faults)
      await admin(h.url, 'DELETE', `/admin/v1/faults/${rule.id}`);
  });

  it("reads only the calling partner's rules, however many rules other partners have", async () => {
    // Rows written past the API (by hand, or before the cap existed): 100,000 of another
    // partner's, which every process once read and grouped each second.
    const hoarder = await createPartner(h.url, ['reservations'], 'Hoarder');
    const now = h.clock.now();
    const rows = Array.from({ length: 100_000 }, (_, i) => ({
      id: `hoard-${i}`,
      partner_id: hoarder.partner.id,
      operation: OPENINGS,
      business_id: i === 0 ? null : `nowhere-${i}`,
      action: 'error' as const,
      status: 500,
      error_code: 'INTERNAL_ERROR',
      retry_after_seconds: null,
      latency_ms: null,
      remaining: null,
      percent: 100,
      created_at: now + i,
      expires_at: now + 3_600_000,
    }));
    for (let i = 0; i < rows.length; i += 2000)
      await h.database.db
        .insertInto('fault_rules')
        .values(rows.slice(i, i + 2000))
        .execute();
    try {
      const openings = `/v3/bookings/${restaurant}/openings?date=${DAY}&time=19:00&covers=2`;
      // Another partner's calls, and the server's health, are untouched.
      expect((await call(h.url, 'GET', openings, { token: p.apiKey.api_key })).status).toBe(200);
      expect((await call(h.url, 'GET', '/healthz')).status).toBe(200);
      // The hoarder's own calls see its oldest rules (the first matches every business).
      const hoarders = await call(h.url, 'GET', openings, { token: hoarder.apiKey.api_key });
      expectCode(hoarders, 500, 'INTERNAL_ERROR');
      expect(hoarders.headers.get('pbs-fault-injected')).toBe('hoard-0');
      // And a listing of every partner's rules is bounded.
      expect((await admin(h.url, 'GET', '/admin/v1/faults')).body.faults.length).toBeLessThanOrEqual(1000);
    } finally {
      await h.database.db.deleteFrom('fault_rules').where('partner_id', '=', hoarder.partner.id).execute();
    }
    // Rows removed by hand are seen within a second.
    await eventually(
      () => call(h.url, 'GET', '/v3/bookings/nowhere/openings?date=2031-05-07&time=19:00&covers=2', { token: hoarder.apiKey.api_key }),
      (r) => r.status === 404,
      'the removed rules gone from the partner’s calls',
    );
  });
});
