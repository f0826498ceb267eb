import fs from 'node:fs';
import path from 'node:path';
import {
  createPbsClient,
  formBody,
  isPbsError,
  ok,
  PbsError,
  signWebhook,
  verificationAnswer,
  verifyWebhook,
  WebhookVerificationError,
} from '@pbs/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkSources } from '../../scripts/sdk-sources.js';
import { sign } from '../../src/webhooks/signing.js';
import { admin, call, createPartner, dialects, startPbs, T0, type Harness } from '../support/harness.js';
import { createRestaurant } from '../support/restaurant.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the SDK package', () => {
  it('has its generated files in step with the OpenAPI document and the error catalogue', async () => {
    const document = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8'));
    for (const [file, text] of Object.entries(await sdkSources(document))) {
      expect(fs.readFileSync(path.join(ROOT, file), 'utf8'), `${file} is stale: run npm run openapi`).toBe(text);
    }
  });

  it('is importable as a package from its built files (what a partner installs)', async () => {
    const { execFile } = await import('node:child_process');
    const script = "import('@pbs/sdk').then((m) => console.log(Object.keys(m).sort().join(',')))";
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT }, (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout),
      ),
    );
    expect(out.trim().split(',')).toEqual(
      expect.arrayContaining(['createPbsClient', 'isPbsError', 'ok', 'PbsError', 'pollJob', 'verifyWebhook', 'errorCatalogue']),
    );
    expect(fs.existsSync(path.join(ROOT, 'packages/sdk/dist/index.d.ts'))).toBe(true);
  });

  it('verifies pbs signatures, and refuses a changed body, an old timestamp or another secret', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const body = '{"time":"2031-05-05T16:00:00+00:00","object":"business","data":{"id":"b1","updates":[{"event_type":"NEW_EVENT"}]}}';
    const timestamp = Math.floor(T0 / 1000);
    // pbs's own signing (src/webhooks/signing.ts) and the SDK's agree.
    expect(signWebhook(secret, 'msg_1', timestamp, body)).toBe(sign(secret, 'msg_1', timestamp, body));
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `${sign(other, 'msg_1', timestamp, body)} ${sign(secret, 'msg_1', timestamp, body)}`,
    };
    const message = verifyWebhook({ secret, body, headers, now: T0 });
    expect(message).toMatchObject({ webhookId: 'msg_1', object: 'business', data: { id: 'b1', updates: [{ event_type: 'NEW_EVENT' }] } });
    expect(verifyWebhook({ secret: [other, secret], body: Buffer.from(body), headers: new Headers(headers), now: T0 }).webhookId).toBe(
      'msg_1',
    );
    expect(() => verifyWebhook({ secret, body: body.replace('b1', 'b2'), headers, now: T0 })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook({ secret, body, headers, now: T0 + 301_000 })).toThrow(/more than 300 s/);
    expect(() => verifyWebhook({ secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, body, headers, now: T0 })).toThrow(
      /no signature/,
    );
    expect(() => verifyWebhook({ secret, body, headers: { 'webhook-id': 'msg_1' }, now: T0 })).toThrow(/missing/);
    expect(verificationAnswer('/hooks?verification=abc')).toEqual({ verification: 'abc' });
    expect(verificationAnswer('/hooks')).toBeUndefined();
  });
});

describe.each(dialects)('the SDK against pbs on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  let restaurant: { id: string };
  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_RATE_LIMIT_PER_SECOND: '3' } });
    p = await createPartner(h.url, ['reservations', 'waitlist', 'private_reviews']);
    restaurant = await createRestaurant(h.url);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${restaurant.id}`);
  });
  afterAll(() => h.close());

  it('types answers and throws typed errors with the catalogue code, status and request id', async () => {
    const pbs = createPbsClient({ baseUrl: h.url, auth: { apiKey: p.apiKey.api_key } });
    const { restaurants } = await ok(pbs.GET('/v3/partner/restaurants'));
    expect(restaurants.map((r) => r.business_id)).toContain(restaurant.id);
    h.wall.tick();
    const error = await pbs
      .GET('/v3/bookings/reservation/{reservation_id}/status', { params: { path: { reservation_id: 'nope' } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PbsError);
    expect(isPbsError(error, 'INVALID_RESERVATION_ID')).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_RESERVATION_ID', requestId: expect.any(String) });
    const anonymous = createPbsClient({ baseUrl: h.url });
    await expect(anonymous.GET('/v3/partner/restaurants')).rejects.toMatchObject({ status: 401, code: 'TOKEN_MISSING' });
  });

  it('waits what Retry-After says on a 429 and tries again; the daily budget is not retried', async () => {
    const waits: number[] = [];
    // The harness's wall clock stands still: the client's wait moves it, so the next second opens.
    const pbs = createPbsClient({
      baseUrl: h.url,
      auth: { apiKey: p.apiKey.api_key },
      sleep: async (ms) => void (waits.push(ms), h.wall.tick(ms)),
    });
    h.wall.tick();
    for (let i = 0; i < 5; i++) await ok(pbs.GET('/v3/partner/restaurants'));
    // The limit is 3 a second: the 4th request waited for the next second, the 5th did not.
    expect(waits).toEqual([1000]);
    const noRetry = createPbsClient({ baseUrl: h.url, auth: { apiKey: p.apiKey.api_key }, maxRetries: 0 });
    await expect(noRetry.GET('/v3/partner/restaurants')).resolves.toBeTruthy();
    await expect(Promise.all([1, 2, 3].map(() => noRetry.GET('/v3/partner/restaurants')))).rejects.toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS_PER_SECOND',
      retryAfterSeconds: 1,
    });
  });

  it('sends an Idempotency-Key with every POST, so a retry after a lost answer books once', async () => {
    h.wall.tick();
    let lost = 0;
    const keys: string[] = [];
    const pbs = createPbsClient({
      baseUrl: h.url,
      auth: { apiKey: p.apiKey.api_key },
      sleep: async (ms) => void h.wall.tick(ms),
      fetch: async (request) => {
        keys.push(request.headers.get('idempotency-key') ?? '');
        const response = await fetch(request);
        // The first answer to a reservation is lost on the way back: pbs did book.
        if (request.url.endsWith('/reservations') && lost++ === 0) throw new TypeError('fetch failed');
        return response;
      },
    });
    const form = { date: '2031-05-07', time: '19:00', covers: '2', unique_id: 'sdk-device' };
    const hold = await ok(
      pbs.POST('/v3/bookings/{business_id}/holds', { params: { path: { business_id: restaurant.id } }, ...formBody(form) } as never),
    );
    const guest = { first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550123', email: 'ada@example.com' };
    const reserved = (await ok(
      pbs.POST('/v3/bookings/{business_id}/reservations', {
        params: { path: { business_id: restaurant.id } },
        ...formBody({ ...form, ...guest, hold_id: (hold as { hold_id: string }).hold_id }),
      } as never),
    )) as { reservation_id: string };
    expect(lost).toBe(2);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).toBe(keys[1]); // the retry carried the same key
    h.wall.tick();
    const status = await call(h.url, 'GET', `/v3/bookings/reservation/${reserved.reservation_id}/status`, { token: p.apiKey.api_key });
    expect(status.body.active).toBe(true);
    const rows = await h.database.db
      .selectFrom('reservations')
      .select('id')
      .where('business_id', '=', restaurant.id)
      .where('status', '=', 'active')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('fetches an OAuth token once and uses it until it expires', async () => {
    h.wall.tick();
    const tokenRequests: string[] = [];
    const pbs = createPbsClient({
      baseUrl: h.url,
      auth: { oauth: { clientId: p.oauth.client_id, clientSecret: p.oauth.client_secret } },
      fetch: (request) => {
        if (request.url.endsWith('/oauth2/token')) tokenRequests.push(request.method);
        return fetch(request);
      },
    });
    const added = await admin(h.url, 'POST', `/admin/v1/businesses/${restaurant.id}/reviews`, {
      json: { rating: 4, text: 'Fine.', user: { name: 'Sam Lee' } },
    });
    expect(added.status, added.text).toBe(201);
    for (let i = 0; i < 2; i++) {
      const page = await ok(pbs.GET('/v3/private/businesses/{business_id}/reviews', { params: { path: { business_id: restaurant.id } } }));
      expect(page.total).toBe(1);
    }
    expect(tokenRequests).toEqual(['POST']);
    const wrong = createPbsClient({ baseUrl: h.url, auth: { oauth: { clientId: p.oauth.client_id, clientSecret: 'wrong' } } });
    await expect(
      wrong.GET('/v3/private/businesses/{business_id}/reviews', { params: { path: { business_id: restaurant.id } } }),
    ).rejects.toMatchObject({ code: 'INVALID_CLIENT' });
  });
});
