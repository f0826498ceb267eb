import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../src/partners/credential-service.js';
import { admin, call, createPartner, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';
import { probeModule } from '../support/probe-module.js';

describe.each(dialects)('authentication on %s', (dialect) => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof createPartner>>;
  let businessId: string;
  let otherBusinessId: string;

  beforeAll(async () => {
    h = await startPbs(dialect, { modules: (ctx, services) => [probeModule(ctx, services)] });
    p = await createPartner(h.url, ['reservations', 'advertising', 'engagement']);
    businessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness() })).body.id;
    otherBusinessId = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Other Place' }) })).body.id;
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/businesses/${businessId}`, { json: { comment: 'pilot' } });
  });
  afterAll(() => h.close());

  const bearerPath = () => `/probe/bearer/${businessId}`;
  const accessToken = async () =>
    (
      await call(h.url, 'POST', '/oauth2/token', {
        form: { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: p.oauth.client_secret },
      })
    ).body.access_token as string;

  it('accepts an API key, an OAuth access token and basic credentials on their routes', async () => {
    const byKey = await call(h.url, 'GET', bearerPath(), { token: p.apiKey.api_key });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({ partner: p.partner.id, kind: 'api_key', business: businessId });

    const byToken = await call(h.url, 'GET', '/probe/engagement', { token: await accessToken() });
    expect(byToken.status).toBe(200);
    expect(byToken.body.kind).toBe('access_token');

    const byBasic = await call(h.url, 'GET', '/probe/basic', { basic: [p.basic.username, p.basic.password] });
    expect(byBasic.status).toBe(200);
    expect(byBasic.body.kind).toBe('basic');
  });

  it('answers a missing credential with 401 TOKEN_MISSING on every scheme', async () => {
    for (const path of [bearerPath(), '/probe/engagement', '/probe/basic']) {
      const r = await call(h.url, 'GET', path);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('TOKEN_MISSING');
      expect(typeof r.body.error.description).toBe('string');
    }
    expect((await call(h.url, 'GET', '/probe/basic')).headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('answers unknown, malformed and wrong-scheme credentials with 401 TOKEN_INVALID', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      [bearerPath(), { authorization: 'Bearer pbs_not_a_real_key' }],
      [bearerPath(), { authorization: 'Bearer pbs_at_forged-token' }],
      [bearerPath(), { authorization: 'Token abc' }],
      [bearerPath(), { authorization: `Basic ${Buffer.from(`${p.basic.username}:${p.basic.password}`).toString('base64')}` }],
      ['/probe/basic', { authorization: `Basic ${Buffer.from(`${p.basic.username}:wrong`).toString('base64')}` }],
      ['/probe/basic', { authorization: `Basic ${Buffer.from(`nobody:${p.basic.password}`).toString('base64')}` }],
      ['/probe/basic', { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }],
      ['/probe/basic', { authorization: `Bearer ${p.apiKey.api_key}` }],
    ];
    for (const [path, headers] of cases) {
      const r = await call(h.url, 'GET', path, { headers });
      expect(r.status, `${path} ${headers.authorization}`).toBe(401);
      expect(r.body.error.code).toBe('TOKEN_INVALID');
    }
  });

  it('answers an interface the partner lacks with 403 PARTNER_ENDPOINT_DISABLED', async () => {
    const r = await call(h.url, 'GET', '/probe/subscriptions', { token: p.apiKey.api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('PARTNER_ENDPOINT_DISABLED');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/business_subscriptions`, { json: { enabled: true } });
    expect((await call(h.url, 'GET', '/probe/subscriptions', { token: p.apiKey.api_key })).status).toBe(200);
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/interfaces/business_subscriptions`, { json: { enabled: false } });
    expect((await call(h.url, 'GET', '/probe/subscriptions', { token: p.apiKey.api_key })).status).toBe(403);
  });

  it('answers a business the partner is not linked to with 403 AUTHORIZATION_ERROR, an unknown one with 404', async () => {
    const r = await call(h.url, 'GET', `/probe/bearer/${otherBusinessId}`, { token: p.apiKey.api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('AUTHORIZATION_ERROR');
    const missing = await call(h.url, 'GET', '/probe/bearer/no-such-business', { token: p.apiKey.api_key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('BUSINESS_NOT_FOUND');
    const byAlias = await call(h.url, 'GET', '/probe/bearer/sample-bistro-san-francisco', { token: p.apiKey.api_key });
    expect(byAlias.status).toBe(200);
  });

  it('refuses every credential of a disabled partner with 401 UNAUTHORIZED_API_KEY, and accepts them again when re-enabled', async () => {
    const q = await createPartner(h.url, ['reservations', 'advertising'], 'Soon Disabled');
    await admin(h.url, 'POST', `/admin/v1/partners/${q.partner.id}/disable`);
    const r1 = await call(h.url, 'GET', '/probe/basic', { basic: [q.basic.username, q.basic.password] });
    expect(r1.status).toBe(401);
    expect(r1.body.error.code).toBe('UNAUTHORIZED_API_KEY');
    const tokenAttempt = await call(h.url, 'POST', '/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: q.oauth.client_id, client_secret: q.oauth.client_secret },
    });
    expect(tokenAttempt.status).toBe(401);
    await admin(h.url, 'POST', `/admin/v1/partners/${q.partner.id}/enable`);
    expect((await call(h.url, 'GET', '/probe/basic', { basic: [q.basic.username, q.basic.password] })).status).toBe(200);
  });

  it('revokes API keys, basic credentials and OAuth clients (with their tokens) at once', async () => {
    const q = await createPartner(h.url, ['reservations', 'advertising', 'engagement'], 'Revoked');
    const token = (
      await call(h.url, 'POST', '/oauth2/token', {
        form: { grant_type: 'client_credentials', client_id: q.oauth.client_id, client_secret: q.oauth.client_secret },
      })
    ).body.access_token;
    expect((await call(h.url, 'GET', '/probe/engagement', { token })).status).toBe(200);
    for (const cred of [q.apiKey, q.basic, q.oauth]) {
      const r = await admin(h.url, 'DELETE', `/admin/v1/credentials/${cred.id}`);
      expect(r.status).toBe(200);
      expect(r.body.revoked_at).not.toBeNull();
    }
    for (const [path, opts] of [
      ['/probe/engagement', { token: q.apiKey.api_key }],
      ['/probe/engagement', { token }],
      ['/probe/basic', { basic: [q.basic.username, q.basic.password] as [string, string] }],
    ] as const) {
      const r = await call(h.url, 'GET', path, opts);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('TOKEN_INVALID');
    }
    const reissue = await call(h.url, 'POST', '/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: q.oauth.client_id, client_secret: q.oauth.client_secret },
    });
    expect(reissue.status).toBe(401);
    expect(reissue.body.error.code).toBe('INVALID_CLIENT');
  });

  it('rotates a key: the new one works, the old one only during the grace period', async () => {
    const q = await createPartner(h.url, ['engagement'], 'Rotating');
    const rotated = await admin(h.url, 'POST', `/admin/v1/credentials/${q.apiKey.id}/rotate`, { json: { grace_seconds: 60 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_key).toMatch(/^pbs_/);
    expect(rotated.body.api_key).not.toBe(q.apiKey.api_key);
    expect((await call(h.url, 'GET', '/probe/engagement', { token: rotated.body.api_key })).status).toBe(200);
    expect((await call(h.url, 'GET', '/probe/engagement', { token: q.apiKey.api_key })).status).toBe(200);
    h.clock.advance(61_000);
    expect((await call(h.url, 'GET', '/probe/engagement', { token: q.apiKey.api_key })).status).toBe(401);
    expect((await call(h.url, 'GET', '/probe/engagement', { token: rotated.body.api_key })).status).toBe(200);

    const basicRotated = (await admin(h.url, 'POST', `/admin/v1/credentials/${q.basic.id}/rotate`)).body;
    expect(basicRotated.username).toBe(q.basic.username);
    expect(basicRotated.password).not.toBe(q.basic.password);
  });

  it('never lists secrets, and stores only hashes', async () => {
    const list = await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/credentials`);
    expect(list.status).toBe(200);
    const text = list.text;
    for (const secret of [p.apiKey.api_key, p.basic.password, p.oauth.client_secret]) expect(text).not.toContain(secret);
    const rows = await h.database.db.selectFrom('credentials').selectAll().execute();
    const dump = JSON.stringify(rows);
    for (const secret of [p.apiKey.api_key, p.basic.password, p.oauth.client_secret]) expect(dump).not.toContain(secret);
  });

  describe('POST /oauth2/token', () => {
    it('returns the same token with a decreasing expires_in while it lives, then a new one', async () => {
      const form = { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: p.oauth.client_secret };
      const first = await call(h.url, 'POST', '/oauth2/token', { form });
      expect(first.status).toBe(200);
      expect(first.body.token_type).toBe('Bearer');
      expect(first.body.expires_in).toBeLessThanOrEqual(ACCESS_TOKEN_TTL_SECONDS);
      h.clock.advance(3600_000);
      const second = await call(h.url, 'POST', '/oauth2/token', { form });
      expect(second.body.access_token).toBe(first.body.access_token);
      expect(second.body.expires_in).toBe(first.body.expires_in - 3600);
      h.clock.advance(ACCESS_TOKEN_TTL_SECONDS * 1000);
      const expired = await call(h.url, 'GET', '/probe/engagement', { token: first.body.access_token });
      expect(expired.status).toBe(401);
      expect(expired.body.error.code).toBe('TOKEN_INVALID');
      const third = await call(h.url, 'POST', '/oauth2/token', { form });
      expect(third.body.access_token).not.toBe(first.body.access_token);
      expect(third.body.expires_in).toBe(ACCESS_TOKEN_TTL_SECONDS);
    });

    it('accepts client authentication in HTTP Basic', async () => {
      const r = await call(h.url, 'POST', '/oauth2/token', {
        form: { grant_type: 'client_credentials' },
        headers: { authorization: `Basic ${Buffer.from(`${p.oauth.client_id}:${p.oauth.client_secret}`).toString('base64')}` },
      });
      expect(r.status).toBe(200);
    });

    it('rejects a wrong secret, a wrong grant and a missing grant', async () => {
      const bad = await call(h.url, 'POST', '/oauth2/token', {
        form: { grant_type: 'client_credentials', client_id: p.oauth.client_id, client_secret: 'nope' },
      });
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe('INVALID_CLIENT');
      const grant = await call(h.url, 'POST', '/oauth2/token', { form: { grant_type: 'password', client_id: 'x', client_secret: 'y' } });
      expect(grant.status).toBe(400);
      expect(grant.body.error.code).toBe('UNSUPPORTED_GRANT_TYPE');
      const none = await call(h.url, 'POST', '/oauth2/token', { form: {} });
      expect(none.status).toBe(400);
      expect(none.body.error.code).toBe('INVALID_REQUEST');
    });
  });

  describe('operator API', () => {
    it('requires the admin token', async () => {
      const missing = await call(h.url, 'GET', '/admin/v1/partners');
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('TOKEN_MISSING');
      const wrong = await call(h.url, 'GET', '/admin/v1/partners', { token: p.apiKey.api_key });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('TOKEN_INVALID');
    });
  });
});
