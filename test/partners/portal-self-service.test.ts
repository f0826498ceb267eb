import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, createPartner, dialects, expectCode, portalSession, startPbs, type Harness } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

/**
 * Issue 43: a partner does in its portal what it had to ask the operator for: its keys (see, roll
 * with an overlap, revoke) and its webhook endpoint (register, change, remove), under the same
 * rules as the operator's API, and only its own.
 */
describe.each(dialects)('a partner’s self-service in the portal on %s', (dialect) => {
  let h: Harness;
  const receivers: Receiver[] = [];
  let n = 0;

  beforeAll(async () => {
    h = await startPbs(dialect);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await h.close();
  });

  const partner = () => createPartner(h.url, ['waitlist', 'webhooks'], `Self-served ${++n}`);
  const restaurants = (key: string) => call(h.url, 'GET', '/v3/partner/restaurants', { token: key });

  it('lists its own credentials without secrets, and rolls one: the new secret once, the old one for the overlap', async () => {
    const p = await partner();
    const other = await partner();
    const headers = await portalSession(h, p.partner.id);
    const listed = await call(h.url, 'GET', '/portal/v1/credentials', { headers });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.credentials.map((c: { kind: string }) => c.kind).sort()).toEqual(['api_key', 'basic', 'oauth_client']);
    expect(listed.text).not.toContain(p.apiKey.api_key);
    expect(listed.text).not.toContain(p.basic.password);

    const rolled = await call(h.url, 'POST', `/portal/v1/credentials/${p.apiKey.id}/rotate`, { headers, json: { grace_seconds: 3600 } });
    expect(rolled.status, rolled.text).toBe(200);
    expect(rolled.body.api_key).toMatch(/^pbs_/);
    expect(rolled.body.api_key).not.toBe(p.apiKey.api_key);
    expect(rolled.body.previous_secret_valid_until).not.toBeNull();
    expect((await restaurants(rolled.body.api_key)).status).toBe(200);
    expect((await restaurants(p.apiKey.api_key)).status).toBe(200); // within the overlap
    // Without an overlap the old secret stops at once.
    const again = await call(h.url, 'POST', `/portal/v1/credentials/${p.apiKey.id}/rotate`, { headers, json: { grace_seconds: 0 } });
    expectCode(await restaurants(rolled.body.api_key), 401, 'TOKEN_INVALID');
    expect((await restaurants(again.body.api_key)).status).toBe(200);

    // Another partner's credential is not found, and unchanged; the overlap has the API's bound.
    expectCode(await call(h.url, 'POST', `/portal/v1/credentials/${other.apiKey.id}/rotate`, { headers }), 404, 'NOT_FOUND');
    expectCode(await call(h.url, 'POST', `/portal/v1/credentials/${other.apiKey.id}/revoke`, { headers }), 404, 'NOT_FOUND');
    expect((await restaurants(other.apiKey.api_key)).status).toBe(200);
    const tooLong = await call(h.url, 'POST', `/portal/v1/credentials/${p.basic.id}/rotate`, {
      headers,
      json: { grace_seconds: 31 * 86400 },
    });
    expect(tooLong.status, tooLong.text).toBe(400);
  });

  it('revokes one of its credentials at once; the session that did it goes on, its other sessions end', async () => {
    const p = await partner();
    const mine = await portalSession(h, p.partner.id);
    const elsewhere = await portalSession(h, p.partner.id);
    const revoked = await call(h.url, 'POST', `/portal/v1/credentials/${p.apiKey.id}/revoke`, { headers: mine });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expectCode(await restaurants(p.apiKey.api_key), 401, 'TOKEN_INVALID');
    expect((await call(h.url, 'GET', '/portal/v1/me', { headers: mine })).status).toBe(200);
    expect((await call(h.url, 'GET', '/portal/v1/me', { headers: elsewhere })).status).toBe(401);
    // A revoked credential is not rolled back to life.
    expectCode(await call(h.url, 'POST', `/portal/v1/credentials/${p.apiKey.id}/rotate`, { headers: mine }), 409, 'CONFLICT');
    // A change needs the portal's own origin, as every portal change does.
    const fromElsewhere = await call(h.url, 'POST', `/portal/v1/credentials/${p.basic.id}/revoke`, {
      headers: { cookie: mine.cookie, origin: 'https://evil.example' },
    });
    expect(fromElsewhere.status, fromElsewhere.text).toBe(403);
  });

  it('registers, changes and removes its own webhook endpoint, under the operator API’s rules', async () => {
    const p = await partner();
    const other = await partner();
    const headers = await portalSession(h, p.partner.id);
    const receiver = new Receiver();
    receiver.behaviour = Receiver.echoing(200);
    receivers.push(receiver);
    const url = await receiver.start();
    expectCode(await call(h.url, 'GET', '/portal/v1/webhooks/endpoint', { headers }), 404, 'NOT_FOUND');
    const registered = await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint', { headers, json: { url } });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.body).toMatchObject({ partner_id: p.partner.id, url, client_id: p.partner.id, status: 'unverified' });
    expect(registered.body.event_types).toContain('NEW_EVENT');
    expect(registered.body.event_types).not.toContain('RESERVATION_CREATED_EVENT');
    const verified = await call(h.url, 'POST', '/portal/v1/webhooks/endpoint/verify', { headers });
    expect(verified.body.status).toBe('verified');

    // A new URL is verified again; the event types are the partner's choice, from the known ones.
    const changed = await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint', {
      headers,
      json: { url: `${url}/v2`, event_types: ['RESERVATION_CREATED_EVENT'] },
    });
    expect(changed.body).toMatchObject({ url: `${url}/v2`, status: 'unverified', event_types: ['RESERVATION_CREATED_EVENT'] });
    const unknown = await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint', { headers, json: { url, event_types: ['NO_SUCH_EVENT'] } });
    expect(unknown.status, unknown.text).toBe(400);
    const notAUrl = await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint', { headers, json: { url: 'ftp://example.com/x' } });
    expectCode(notAUrl, 400, 'VALIDATION_ERROR');
    expect((await call(h.url, 'PUT', '/portal/v1/webhooks/endpoint', { headers, json: {} })).status).toBe(400);

    // Only its own: the other partner has none, and the operator sees the partner's.
    expectCode(await admin(h.url, 'GET', `/admin/v1/partners/${other.partner.id}/webhook`), 404, 'NOT_FOUND');
    expect((await admin(h.url, 'GET', `/admin/v1/partners/${p.partner.id}/webhook`)).body.url).toBe(`${url}/v2`);

    const removed = await call(h.url, 'DELETE', '/portal/v1/webhooks/endpoint', { headers });
    expect(removed.status, removed.text).toBe(204);
    expectCode(await call(h.url, 'GET', '/portal/v1/webhooks/endpoint', { headers }), 404, 'NOT_FOUND');
    expectCode(await call(h.url, 'DELETE', '/portal/v1/webhooks/endpoint', { headers }), 404, 'NOT_FOUND');
  });

  it('says which interfaces the partner has, so the portal offers only their operations', async () => {
    const p = await partner();
    const headers = await portalSession(h, p.partner.id);
    expect((await call(h.url, 'GET', '/portal/v1/me', { headers })).body.interfaces.sort()).toEqual(['waitlist', 'webhooks']);
  });
});
