import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, dialects, expectCode, sampleBusiness, startPbs, type CallOptions, type Harness } from '../support/harness.js';

const REDIRECT = 'https://app.example.com/leads/callback';
/** Production wants a long operator token. */
const OPERATOR_TOKEN = 'o'.repeat(40);

/**
 * Outside the sandbox a business user signs in with a password the operator set (Argon2id), on
 * the same consent page; redirect URIs must be registered (docs/owners.md).
 */
describe.each(dialects)('business user sign-in in production on %s', (dialect) => {
  let h: Harness;
  let p: { partner: { id: string }; oauth: { client_id: string; client_secret: string } };
  let user: string;
  const request = () => ({ client_id: p.oauth.client_id, response_type: 'code', scope: 'leads', state: 's1' });
  const answer = (form: Record<string, string>) =>
    fetch(`${h.url}/oauth2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ ...request(), decision: 'approve', ...form }).toString(),
    });

  const admin = (base: string, method: string, path: string, options: CallOptions = {}) =>
    call(base, method, path, { token: OPERATOR_TOKEN, ...options });

  beforeAll(async () => {
    h = await startPbs(dialect, {
      env: { PBS_SANDBOX: '0', PBS_SECRET_KEY: 'k'.repeat(40), PBS_ADMIN_TOKEN: OPERATOR_TOKEN, PBS_AUTH_FAILURES_PER_MINUTE: '3' },
    });
    const partner = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Production App', interfaces: ['leads'] } })).body;
    // A production partner is approved for launch before its credentials are issued (docs/readiness.md).
    await admin(h.url, 'PUT', `/admin/v1/partners/${partner.id}/launch-approval`, { json: { note: 'reviewed' } });
    const oauth = (await admin(h.url, 'POST', `/admin/v1/partners/${partner.id}/credentials`, { json: { kind: 'oauth_client' } })).body;
    p = { partner, oauth };
    const business = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Prod Plumbing' }) })).body.id;
    user = (
      await admin(h.url, 'POST', '/admin/v1/business-users', {
        json: { name: 'Pat Owner', email: 'Pat@Example.com', business_ids: [business] },
      })
    ).body.id;
  });
  afterAll(() => h.close());

  it('needs a registered redirect URI, and shows a password form, not a list of business users', async () => {
    const loopback = await fetch(
      `${h.url}/oauth2/authorize?${new URLSearchParams({ ...request(), redirect_uri: 'http://127.0.0.1:9/cb' })}`,
    );
    expect(loopback.status).toBe(400);
    expect(await loopback.text()).toContain('registered no redirect URI');
    await admin(h.url, 'PUT', `/admin/v1/partners/${p.partner.id}/redirect-uris`, { json: { redirect_uris: [REDIRECT] } });
    const page = await fetch(`${h.url}/oauth2/authorize?${new URLSearchParams(request())}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('type="password"');
    expect(html).not.toContain('pat@example.com');
    expect(html).not.toContain('<select');
  });

  it('signs in with the password the operator set, kept as Argon2id and never shown', async () => {
    expect((await answer({ email: 'pat@example.com', password: 'anything at all' })).status).toBe(401);
    expectCode(
      await admin(h.url, 'PUT', `/admin/v1/business-users/${user}/password`, { json: { password: 'short' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(
      (await admin(h.url, 'PUT', `/admin/v1/business-users/${user}/password`, { json: { password: 'correct horse battery' } })).status,
    ).toBe(204);
    const shown = await admin(h.url, 'GET', `/admin/v1/business-users/${user}`);
    expect(shown.body.has_password).toBe(true);
    expect(shown.text).not.toContain('argon2');

    expect((await answer({ email: 'pat@example.com', password: 'wrong password!' })).status).toBe(401);
    const signedIn = await answer({ email: ' PAT@example.com ', password: 'correct horse battery' });
    expect(signedIn.status).toBe(303);
    const code = new URL(signedIn.headers.get('location')!).searchParams.get('code')!;
    expect(signedIn.headers.get('location')).toMatch(/^https:\/\/app\.example\.com\/leads\/callback\?code=/);
    const issued = await call(h.url, 'POST', '/oauth2/token', {
      form: { grant_type: 'authorization_code', code, client_id: p.oauth.client_id, client_secret: p.oauth.client_secret },
    });
    expect(issued.status).toBe(200);
    // The token is the business user's: their business answers (not advertising, so no leads data).
    const business = shown.body.business_ids[0];
    expectCode(
      await call(h.url, 'GET', `/v3/businesses/${business}/lead_ids`, { token: issued.body.access_token }),
      403,
      'UNAUTHORIZED_BUSINESS_MINIMUM_ADVERTISING',
    );
  });

  it('slows guessing: past the failures allowed a wrong password is 429, the right one still passes', async () => {
    const email = 'pat@example.com';
    // Three failures a minute are allowed (two were spent above): then a wrong one is 429.
    let throttled = await answer({ email, password: 'guess number 0' });
    for (let i = 1; throttled.status === 401 && i < 5; i++) throttled = await answer({ email, password: `guess number ${i}` });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await answer({ email, password: 'correct horse battery' })).status).toBe(303);
    // Removed: no sign-in until one is set again.
    expect((await admin(h.url, 'DELETE', `/admin/v1/business-users/${user}/password`)).status).toBe(204);
    expect((await answer({ email: 'someone@example.com', password: 'correct horse battery' })).status).toBe(401);
    expect((await answer({ email: 'pat@example.com', password: 'correct horse battery' })).status).toBe(429);
  });
});
