import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { admin, call, createPartner, dialects, startPbs, type Harness } from '../support/harness.js';
import { createRestaurant, hold, reserve } from '../support/restaurant.js';

/** Issue 13 §5: what strangers send, and what it costs pbs. */
describe.each(dialects)('hostile input on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  let biz: { id: string; alias: string };

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '100000' } });
    p = await createPartner(h.url, ['reservations', 'waitlist', 'listing_management']);
    biz = await createRestaurant(h.url, {}, 'Hostile Bistro');
  });
  afterAll(() => h.close());

  it('answers the shapes that were 500s with the catalogue’s 4xx', async () => {
    for (const date of ['9999-12-30', '9999-12-31', '0999-01-01', '1000-01-01'.replace('1000', '0000')]) {
      const r = await call(h.url, 'GET', `/v3/bookings/${biz.id}/openings?date=${date}&time=19:00&covers=2`, { token: p.apiKey.api_key });
      expect(r.status, date).toBe(400);
      expect(r.body.error.code).toBe('DATE_TIME_VALIDATION_ERROR');
    }
    expect(
      (await call(h.url, 'GET', `/v3/bookings/${biz.id}/openings?date=9998-12-31&time=19:00&covers=2`, { token: p.apiKey.api_key })).status,
    ).toBe(200);
    for (const path of ['/v3/partner/restaurants?offset=1e20']) {
      const r = await call(h.url, 'GET', path, { token: p.apiKey.api_key });
      expect(r.status, path).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    for (const path of [
      '/admin/v1/partners?offset=1e20',
      '/admin/v1/businesses?offset=1e20',
      `/admin/v1/partners/${p.partner.id}/businesses?offset=1e20`,
      '/admin/v1/tasks?offset=1e20',
    ]) {
      expect((await admin(h.url, 'GET', path)).status, path).toBe(400);
    }
    expect(
      (await call(h.url, 'GET', '/listing_management/businesses/v1?offset=1e20', { basic: [p.basic.username, p.basic.password] })).status,
    ).toBe(400);
    for (const user of [`${p.basic.username}\u0000`, 'a\u0000b', '\u0000']) {
      const r = await call(h.url, 'GET', '/listing_management/businesses/v1', {
        headers: { authorization: `Basic ${Buffer.from(`${user}:${p.basic.password}`).toString('base64')}` },
      });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('TOKEN_INVALID');
    }
  });

  it('refuses JSON nested too deep or too wide before parsing it, and form bodies where JSON is read', async () => {
    const add = (body: string, contentType = 'application/json') =>
      call(h.url, 'POST', `/v3/businesses/${biz.id}/waitlist/visits`, { token: p.apiKey.api_key, body, contentType });
    for (const body of [
      '['.repeat(400_000) + ']'.repeat(400_000),
      `{"business_ids":${'['.repeat(40)}${']'.repeat(40)}}`,
      `[${'0,'.repeat(150_000)}0]`,
    ]) {
      const r = await add(body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('MALFORMED_JSON');
      expect(r.body.error.description).toMatch(/deeper than 32 levels|more than 100000 values/);
    }
    // A body within the limits is read as before (brackets inside strings are text: json-shape unit test).
    const fine = await add(JSON.stringify({ party_size: 2, name: 'Ann' }));
    expect(fine.body.error.code).toBe('AUTHORIZATION_ERROR'); // read, and judged: the business is not this partner's
    const form = await add('party_size=2&name=Ann', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const adminForm = await admin(h.url, 'POST', '/admin/v1/clock/advance', {
      body: 'minutes=5',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(adminForm.status).toBe(415);
    // A route without a body ignores a form-posting client's form (clients of the form-based
    // reservations interface post forms everywhere).
    const cancel = await call(h.url, 'POST', '/v3/bookings/reservation/00000000-0000-7000-8000-000000000000/cancel', {
      token: p.apiKey.api_key,
      body: 'x=1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(cancel.body.error.code).not.toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses numbers the clock and the operator routes cannot hold, and keeps answering', async () => {
    const before = (await admin(h.url, 'GET', '/admin/v1/clock')).body.now;
    for (const body of [{ minutes: 1e308 }, { hours: 1e20 }, { seconds: 1e300 }]) {
      const r = await admin(h.url, 'POST', '/admin/v1/clock/advance', { json: body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    // A refused time moves nothing, not even the freeze asked for with it.
    const frozenBefore = (await admin(h.url, 'GET', '/admin/v1/clock')).body.frozen;
    expect((await admin(h.url, 'PUT', '/admin/v1/clock', { json: { time: '9500-01-01T00:00:00Z', frozen: !frozenBefore } })).status).toBe(
      400,
    );
    expect((await admin(h.url, 'GET', '/admin/v1/clock')).body.frozen).toBe(frozenBefore);
    for (const time of ['8999-12-31T00:00:00Z', '9500-01-01T00:00:00Z', '1900-01-01T00:00:00Z']) {
      const r = await admin(h.url, 'PUT', '/admin/v1/clock', { json: { time } });
      expect(r.status, time).toBe(time.startsWith('8999') ? 200 : 400);
      if (r.status === 400) expect(r.body.error.description).toMatch(/clock stays between/);
    }
    await admin(h.url, 'PUT', '/admin/v1/clock', { json: { time: before } });
    const after = await call(h.url, 'GET', '/v3/partner/restaurants', { token: p.apiKey.api_key });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    for (const path of [
      '/admin/v1/engagement/weeks?offset=1e20',
      '/admin/v1/engagement/weeks?limit=1e20',
      `/admin/v1/businesses/${biz.id}/reviews?offset=1e20`,
    ]) {
      const r = await admin(h.url, 'GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    const promotion = await admin(h.url, 'PUT', '/admin/v1/advertising/promotions/HUGE', {
      json: { program_types: ['CPC'], min_budget: 1e20 },
    });
    expect(promotion.status).toBe(400);
    const limits = await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/reservations`, {
      json: { enabled: true, per_second: 1e20 },
    });
    expect(limits.status).toBe(400);
  });

  it('keeps the token endpoint small: forms only, a few KB, no JSON', async () => {
    const json = await call(h.url, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: p.oauth.client_secret },
    });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const big = await call(h.url, 'POST', '/oauth2/token', {
      body: `grant_type=client_credentials&pad=${'a'.repeat(5000)}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(big.status).toBe(413);
    const manyParameters = Array.from({ length: 300 }, (_, i) => `p${i}=1`).join('&');
    const many = await call(h.url, 'POST', `/v3/bookings/${biz.id}/holds`, {
      token: p.apiKey.api_key,
      body: manyParameters,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(many.status).toBe(413);
    expect(many.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const ok = await call(h.url, 'POST', '/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: p.oauth.client_secret },
    });
    expect(ok.status).toBe(200);
  });

  it('renders no text from the query string on the confirmation page, refuses framing, and cancels only with the page’s token', async () => {
    const slot = { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'page-guest' };
    const held = await hold(h.url, p.apiKey.api_key, biz.id, slot);
    const id = (await reserve(h.url, p.apiKey.api_key, biz.id, { ...slot, hold_id: held.body.hold_id })).body.reservation_id;
    const pagePath = `/reservations/${biz.alias}/confirmed/${id}`;
    for (const query of [
      '?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '?notice=%3Cb%3Ehi%3C%2Fb%3E',
      '?notice=toString',
      '?notice=__proto__',
    ]) {
      const page = await call(h.url, 'GET', pagePath + query);
      expect(page.status).toBe(200);
      expect(page.text).not.toMatch(/alert|<b>hi|role="alert"/);
    }
    const page = await call(h.url, 'GET', pagePath);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    // A form on another site knows the URL but not the token: nothing is canceled.
    for (const body of [undefined, new URLSearchParams({ token: 'forged' })]) {
      const forged = await fetch(`${h.url}${pagePath}/cancel`, { method: 'POST', redirect: 'manual', body });
      expect(forged.status).toBe(303);
      expect(forged.headers.get('location')).toMatch(/notice=expired_form$/);
    }
    expect((await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: p.apiKey.api_key })).body.active).toBe(true);
    expect((await call(h.url, 'GET', `${pagePath}?notice=expired_form`)).text).toContain('please try again');
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1];
    const real = await fetch(`${h.url}${pagePath}/cancel`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ token }) });
    expect(real.headers.get('location')).toBe(pagePath);
    expect((await call(h.url, 'GET', `/v3/bookings/reservation/${id}/status`, { token: p.apiKey.api_key })).body.error.code).toBe(
      'RESERVATION_CANCELED',
    );
  });
});

describe('limits per client address behind a proxy', () => {
  const burst = async (h: Harness, forwardedFor: string) => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await call(h.url, 'GET', '/openapi.json', { headers: { 'x-forwarded-for': forwardedFor } })).status);
    return statuses;
  };

  it('counts the client a trusted proxy names (PBS_TRUST_PROXY), not the proxy', async () => {
    const h = await startPbs('sqlite', { env: { PBS_PUBLIC_RATE_LIMIT_PER_SECOND: '2', PBS_TRUST_PROXY: '127.0.0.1' } });
    try {
      expect(await burst(h, '203.0.113.1')).toContain(429);
      // Another client behind the same proxy has its own bucket.
      expect(await burst(h, '203.0.113.2')).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await h.close();
    }
  });

  it('ignores X-Forwarded-For from anyone it was not told to trust', async () => {
    const h = await startPbs('sqlite', { env: { PBS_PUBLIC_RATE_LIMIT_PER_SECOND: '2' } });
    try {
      expect(await burst(h, '203.0.113.1')).toContain(429);
      // A stranger cannot escape the limit by naming another address.
      expect((await burst(h, '203.0.113.2')).every((status) => status === 429)).toBe(true);
    } finally {
      await h.close();
    }
  });

  it('reads PBS_TRUST_PROXY as hops or addresses and ranges, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ PBS_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ PBS_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    for (const bad of ['proxy.example', '10.0.0.0/33', '300.1.1.1'])
      expect(() => loadConfig({ PBS_TRUST_PROXY: bad }), bad).toThrow(ConfigError);
  });
});

describe.each(dialects)('limits per client address on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  beforeAll(async () => {
    h = await startPbs(dialect, {
      env: {
        PBS_PUBLIC_RATE_LIMIT_PER_SECOND: '2',
        PBS_AUTH_FAILURES_PER_MINUTE: '3',
        PBS_REQUEST_TIMEOUT_MS: '1000',
        PBS_HEADERS_TIMEOUT_MS: '1000',
        PBS_TRUST_PROXY: '127.0.0.1',
      },
    });
    p = await createPartner(h.url, ['listing_management', 'reservations', 'waitlist']);
  });
  afterAll(() => h.close());

  it('limits requests to routes anyone may call, but not health checks', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await call(h.url, 'POST', '/oauth2/token', { form: { grant_type: 'client_credentials' } })).status);
    expect(statuses.slice(0, 4)).not.toContain(429); // a burst of twice the rate
    expect(statuses.slice(4)).toEqual([429, 429, 429, 429]);
    const limited = await call(h.url, 'GET', '/openapi.json');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) expect((await call(h.url, 'GET', '/healthz')).status).toBe(200);
    h.wall.tick(5000);
    expect((await call(h.url, 'GET', '/openapi.json')).status).toBe(200);
  });

  it('throttles failed logins per (address, identity) and never refuses the right secret', async () => {
    const other = { 'x-forwarded-for': '203.0.113.9' };
    const lm = (password: string, headers: Record<string, string> = {}) =>
      call(h.url, 'GET', '/listing_management/businesses/v1', { basic: [p.basic.username, password], headers });
    for (let i = 0; i < 3; i++) expect((await lm('wrong')).status).toBe(401);
    const blocked = await lm('wrong');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('TOO_MANY_REQUESTS_PER_SECOND');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right secret passes from the same address and from another; other identities from the
    // guesser's address are untouched, and the guesser's address is no one else's problem.
    expect((await lm(p.basic.password)).status).toBe(200);
    expect((await lm(p.basic.password, other)).status).toBe(200);
    expect((await lm('wrong', other)).status).toBe(401);
    expect((await call(h.url, 'GET', '/admin/v1/partners', { token: 'test-admin-token' })).status).toBe(200);
    expect((await call(h.url, 'GET', '/v3/partner/restaurants', { token: p.apiKey.api_key })).status).toBe(200);
    h.wall.tick(61_000);
    expect((await lm('wrong')).status).toBe(401);

    for (let i = 0; i < 3; i++) expect((await call(h.url, 'GET', '/admin/v1/partners', { token: 'guess' })).status).toBe(401);
    expect((await call(h.url, 'GET', '/admin/v1/partners', { token: 'guess' })).status).toBe(429);
    expect((await call(h.url, 'GET', '/admin/v1/partners', { token: 'guess', headers: other })).status).toBe(401);
    expect((await call(h.url, 'GET', '/admin/v1/partners', { token: 'test-admin-token' })).status).toBe(200);

    for (let i = 0; i < 8; i++)
      expect((await call(h.url, 'GET', '/v3/partner/restaurants', { token: `guess-${i}` })).status).toBe(i < 3 ? 401 : 429);
    expect((await call(h.url, 'GET', '/v3/partner/restaurants', { token: p.apiKey.api_key })).status).toBe(200);

    const exchange = (secret: string) =>
      call(h.url, 'POST', '/oauth2/token', {
        form: { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: secret },
      });
    h.wall.tick(61_000);
    for (let i = 0; i < 3; i++) {
      expect((await exchange('wrong')).status).toBe(401);
      h.wall.tick(1000);
    }
    expect((await exchange('wrong')).status).toBe(429);
    expect((await exchange(p.oauth.client_secret)).status).toBe(200);
  });

  it('closes a request whose body never finishes', async () => {
    const { port } = new URL(h.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant',
    );
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    // Node answers 408 and closes once the request timeout has passed (checked every second).
    await new Promise((resolve) => socket.once('close', resolve));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});
