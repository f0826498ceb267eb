import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, startPbs, T0, type Harness } from '../support/harness.js';
import { probeModule } from '../support/probe-module.js';
import { eventually } from '../support/wait.js';

async function probeWrites(h: Harness): Promise<number> {
  const rows = await h.database.db.selectFrom('settings').select('key').where('key', 'like', 'probe:%').execute();
  return rows.length;
}

describe.each(dialects)('Idempotency-Key on %s', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    h = await startPbs(dialect, { modules: (ctx, services) => [probeModule(ctx, services)] });
    key = (await createPartner(h.url, ['reservations'])).apiKey.api_key;
  });
  afterAll(() => h.close());

  it('runs the first request once and replays its response to retries', async () => {
    const before = await probeWrites(h);
    const headers = { 'idempotency-key': 'replay-1' };
    const first = await call(h.url, 'POST', '/probe/write', { token: key, json: { a: 1 }, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await call(h.url, 'POST', '/probe/write', { token: key, json: { a: 1 }, headers });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/application\/json/);
    expect(second.body).toEqual(first.body);
    expect(await probeWrites(h)).toBe(before + 1);
  });

  it('treats form bodies and DELETE the same way', async () => {
    const headers = { 'idempotency-key': 'form-1' };
    const first = await call(h.url, 'POST', '/probe/write', { token: key, form: { covers: '2' }, headers });
    const again = await call(h.url, 'POST', '/probe/write', { token: key, form: { covers: '2' }, headers });
    expect(again.body).toEqual(first.body);
    const del = await call(h.url, 'DELETE', '/probe/write/x', { token: key, headers: { 'idempotency-key': 'del-1' } });
    const delAgain = await call(h.url, 'DELETE', '/probe/write/x', { token: key, headers: { 'idempotency-key': 'del-1' } });
    expect(del.status).toBe(200);
    expect(delAgain.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers the same key with a different request with 422', async () => {
    const headers = { 'idempotency-key': 'reuse-1' };
    await call(h.url, 'POST', '/probe/write', { token: key, json: { a: 1 }, headers });
    const other = await call(h.url, 'POST', '/probe/write', { token: key, json: { a: 2 }, headers });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers 409 while the first request is still running', async () => {
    const headers = { 'idempotency-key': 'slow-1' };
    const slow = call(h.url, 'POST', '/probe/slow', { token: key, headers });
    // Wait until the first request holds the key.
    await eventually(
      () => h.database.db.selectFrom('idempotency_keys').select('state').where('key', '=', 'slow-1').executeTakeFirst(),
      (row) => row !== undefined,
      'the first request to hold the key',
      10,
    );
    const concurrent = await call(h.url, 'POST', '/probe/slow', { token: key, headers });
    expect(concurrent.status).toBe(409);
    expect(concurrent.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    await call(h.url, 'POST', '/probe/release');
    expect((await slow).status).toBe(200);
    const replay = await call(h.url, 'POST', '/probe/slow', { token: key, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('does not store server errors, so the request can be retried', async () => {
    const headers = { 'idempotency-key': 'fail-1' };
    const first = await call(h.url, 'POST', '/probe/fail', { token: key, headers });
    expect(first.status).toBe(500);
    expect(first.body.error.code).toBe('INTERNAL_ERROR');
    const second = await call(h.url, 'POST', '/probe/fail', { token: key, headers });
    expect(second.status).toBe(500);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('forgets a key after 24 hours (by the clock)', async () => {
    const headers = { 'idempotency-key': 'ttl-1' };
    const first = await call(h.url, 'POST', '/probe/write', { token: key, json: { t: 1 }, headers });
    h.clock.advance(24 * 3600_000 + 1000);
    const later = await call(h.url, 'POST', '/probe/write', { token: key, json: { t: 1 }, headers });
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('keeps keys apart per partner and validates the key', async () => {
    const otherKey = (await createPartner(h.url, ['reservations'], 'Other')).apiKey.api_key;
    const headers = { 'idempotency-key': 'shared-name' };
    const a = await call(h.url, 'POST', '/probe/write', { token: key, json: { x: 1 }, headers });
    const b = await call(h.url, 'POST', '/probe/write', { token: otherKey, json: { x: 1 }, headers });
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    const bad = await call(h.url, 'POST', '/probe/write', { token: key, json: {}, headers: { 'idempotency-key': 'x'.repeat(300) } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('Idempotency-Key');
  });
});

describe.each(dialects)('rate limits on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPbs(dialect, {
      modules: (ctx, services) => [probeModule(ctx, services)],
      env: { PBS_RATE_LIMIT_PER_SECOND: '3', PBS_RATE_LIMIT_PER_DAY: '1000' },
    });
  });
  afterAll(() => h.close());

  it('answers past the per-second limit with 429 TOO_MANY_REQUESTS_PER_SECOND, and again in the next (wall-clock) second', async () => {
    const p = await createPartner(h.url, ['engagement']);
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 5; i++) {
      const r = await call(h.url, 'GET', '/probe/engagement', { token: p.apiKey.api_key });
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(limited!.body.error.code).toBe('TOO_MANY_REQUESTS_PER_SECOND');
    expect(limited!.headers.get('retry-after')).toBe('1');
    h.wall.tick();
    expect((await call(h.url, 'GET', '/probe/engagement', { token: p.apiKey.api_key })).status).toBe(200);
  });

  it('uses the interface default (5/s for subscriptions) and per-partner overrides', async () => {
    const p = await createPartner(h.url, ['business_subscriptions', 'engagement']);
    const run = async (path: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await call(h.url, 'GET', path, { token: p.apiKey.api_key })).status);
      return out;
    };
    h.wall.tick();
    expect(await run('/probe/subscriptions', 6)).toEqual([200, 200, 200, 200, 200, 429]);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/engagement`, { json: { per_second: 1 } });
    h.wall.tick();
    expect(await run('/probe/engagement', 2)).toEqual([200, 429]);
  });

  it('enforces the daily budget with ACCESS_LIMIT_REACHED, reports it in RateLimit-* headers, and resets at midnight UTC', async () => {
    const p = await createPartner(h.url, ['engagement']);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/engagement`, { json: { per_day: 2 } });
    const first = await call(h.url, 'GET', '/probe/engagement', { token: p.apiKey.api_key });
    expect(first.headers.get('ratelimit-dailylimit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    const day = Math.floor(h.clock.now() / 86_400_000);
    expect(first.headers.get('ratelimit-resettime')).toBe(new Date((day + 1) * 86_400_000).toISOString().replace('.000Z', '+00:00'));
    h.wall.tick();
    expect((await call(h.url, 'GET', '/probe/engagement', { token: p.apiKey.api_key })).headers.get('ratelimit-remaining')).toBe('0');
    h.wall.tick();
    const over = await call(h.url, 'GET', '/probe/engagement', { token: p.apiKey.api_key });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('ACCESS_LIMIT_REACHED');
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    h.clock.set((day + 1) * 86_400_000 + 5);
    expect((await call(h.url, 'GET', '/probe/engagement', { token: p.apiKey.api_key })).status).toBe(200);
    h.clock.set(T0);
  });

  it('keeps each partner to its own budget', async () => {
    const a = await createPartner(h.url, ['engagement'], 'A');
    const b = await createPartner(h.url, ['engagement'], 'B');
    h.wall.tick();
    for (let i = 0; i < 3; i++) await call(h.url, 'GET', '/probe/engagement', { token: a.apiKey.api_key });
    expect((await call(h.url, 'GET', '/probe/engagement', { token: a.apiKey.api_key })).status).toBe(429);
    expect((await call(h.url, 'GET', '/probe/engagement', { token: b.apiKey.api_key })).status).toBe(200);
  });
});
