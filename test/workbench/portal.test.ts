import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  call,
  createPartner,
  dialects,
  expectCode,
  linkedBusiness,
  startPbs,
  type CallOptions,
  type Harness,
  type TestPartner,
} from '../support/harness.js';

/** Issue 26 "Access": portal links, sessions in a cookie, and a partner seeing only its own requests. */
describe.each(dialects)('the partner portal on %s', (dialect) => {
  let h: Harness;
  let a: TestPartner;
  let b: TestPartner;

  beforeAll(async () => {
    h = await startPbs(dialect);
    a = await createPartner(h.url, ['reservations'], 'Partner A');
    b = await createPartner(h.url, ['reservations'], 'Partner B');
  });
  afterAll(() => h.close());

  /** Signs in through a fresh portal link; answers the session cookie (`name=value`). */
  const signIn = async (p: TestPartner) => {
    const link = await admin(h.url, 'POST', `/admin/v1/partners/${p.partner.id}/portal-links`);
    expect(link.status, link.text).toBe(201);
    const r = await fetch(link.body.url.replace(h.pbs.ctx.config.publicUrl, h.url), { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/portal');
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^pbs_portal=\w+; Path=\/portal; HttpOnly; SameSite=Strict; Max-Age=604800$/);
    return { cookie: cookie.split(';')[0], link: link.body.url as string };
  };
  const as = (cookie: string, extra: CallOptions = {}): CallOptions => ({ ...extra, headers: { cookie, ...extra.headers } });

  it('exchanges a link once for a session that sees its own partner', async () => {
    const { cookie, link } = await signIn(a);
    const me = await call(h.url, 'GET', '/portal/v1/me', as(cookie));
    expect(me.body).toMatchObject({ partner_id: a.partner.id, partner_name: 'Partner A', session_expires_at: expect.any(String) });
    // Single use: the same link again is refused.
    const again = await fetch(link.replace(h.pbs.ctx.config.publicUrl, h.url), { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('TOKEN_INVALID');
  });

  it('refuses a link after 15 minutes', async () => {
    const link = (await admin(h.url, 'POST', `/admin/v1/partners/${a.partner.id}/portal-links`)).body.url as string;
    h.clock.advance(15 * 60_000 + 1);
    expect((await fetch(link.replace(h.pbs.ctx.config.publicUrl, h.url), { redirect: 'manual' })).status).toBe(401);
    expectCode(await admin(h.url, 'POST', '/admin/v1/partners/nobody/portal-links'), 404, 'NOT_FOUND');
  });

  it("shows a partner its own requests only: never another partner's, with a session, an API key or the operator token", async () => {
    for (const p of [a, b]) await call(h.url, 'GET', '/v3/partner/restaurants', { token: p.apiKey.api_key });
    await h.pbs.services.requestLog.flush();
    const sessionA = (await signIn(a)).cookie;
    const sessionB = (await signIn(b)).cookie;
    const mine = (await call(h.url, 'GET', '/portal/v1/request-log', as(sessionA))).body.entries as Array<{
      id: number;
      partner_id: string;
    }>;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e) => e.partner_id === a.partner.id)).toBe(true);
    // A partner_id in the query is not a filter the portal takes.
    expectCode(await call(h.url, 'GET', `/portal/v1/request-log?partner_id=${b.partner.id}`, as(sessionA)), 400, 'VALIDATION_ERROR');
    // B cannot read A's entry; A can.
    expect((await call(h.url, 'GET', `/portal/v1/request-log/${mine[0].id}`, as(sessionA))).status).toBe(200);
    expectCode(await call(h.url, 'GET', `/portal/v1/request-log/${mine[0].id}`, as(sessionB)), 404, 'NOT_FOUND');
    // Neither an API key nor the operator token is a portal session.
    for (const path of [
      '/portal/v1/me',
      '/portal/v1/request-log',
      `/portal/v1/request-log/${mine[0].id}`,
      '/portal/v1/request-log/errors',
    ]) {
      expectCode(await call(h.url, 'GET', path, { token: a.apiKey.api_key }), 401, 'TOKEN_MISSING');
      expectCode(await admin(h.url, 'GET', path), 401, 'TOKEN_MISSING');
      expectCode(await call(h.url, 'GET', path, as('pbs_portal=forged')), 401, 'TOKEN_INVALID');
    }
    expect((await call(h.url, 'GET', '/portal/v1/request-log/errors', as(sessionB))).status).toBe(200);
  });

  it("lists the businesses the partner may act for, by name, and no other partner's", async () => {
    const { id: mine } = await linkedBusiness(h.url, [a.partner.id], { name: 'Portal Bistro', alias: 'portal-bistro' });
    const { id: theirs } = await linkedBusiness(h.url, [b.partner.id], { name: 'Other Diner', alias: 'other-diner' });
    const sessionA = (await signIn(a)).cookie;
    const listed = await call(h.url, 'GET', '/portal/v1/businesses?limit=10', as(sessionA));
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, limit: 10, offset: 0 });
    expect(listed.body.businesses).toEqual([
      { business_id: mine, alias: 'portal-bistro', name: 'Portal Bistro', comment: null, linked_at: expect.any(String) },
    ]);
    expect(listed.text).not.toContain(theirs);
    expectCode(await call(h.url, 'GET', '/portal/v1/businesses?limit=1001', as(sessionA)), 400, 'VALIDATION_ERROR');
    expectCode(await call(h.url, 'GET', '/portal/v1/businesses', { token: a.apiKey.api_key }), 401, 'TOKEN_MISSING');
  });

  it('takes changes from its own origin only, and signs out', async () => {
    const { cookie } = await signIn(a);
    expectCode(
      await call(h.url, 'POST', '/portal/v1/sign-out', as(cookie, { headers: { origin: 'https://evil.example' } })),
      403,
      'AUTHORIZATION_ERROR',
    );
    expectCode(
      await call(h.url, 'POST', '/portal/v1/sign-out', as(cookie, { headers: { 'sec-fetch-site': 'cross-site' } })),
      403,
      'AUTHORIZATION_ERROR',
    );
    expect((await call(h.url, 'GET', '/portal/v1/me', as(cookie))).status).toBe(200);
    const out = await call(h.url, 'POST', '/portal/v1/sign-out', as(cookie, { headers: { origin: h.url } }));
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(cookie)), 401, 'TOKEN_INVALID');
  });

  it('ends sessions when the operator revokes them or a credential is rotated', async () => {
    const first = (await signIn(a)).cookie;
    expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${a.partner.id}/portal-sessions`)).body.revoked).toBeGreaterThanOrEqual(1);
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(first)), 401, 'TOKEN_INVALID');
    const second = (await signIn(a)).cookie;
    h.clock.advance(1000);
    expect((await admin(h.url, 'POST', `/admin/v1/credentials/${a.basic.id}/rotate`)).status).toBe(200);
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(second)), 401, 'TOKEN_INVALID');
  });

  it('lets a partner sign in with its own API key in the sandbox', async () => {
    const r = await call(h.url, 'POST', '/portal/sign-in', { token: b.apiKey.api_key });
    expect(r.status, r.text).toBe(200);
    const cookie = r.headers.get('set-cookie')!.split(';')[0];
    expect((await call(h.url, 'GET', '/portal/v1/me', as(cookie))).body.partner_id).toBe(b.partner.id);
    expectCode(await call(h.url, 'POST', '/portal/sign-in', { token: 'nope' }), 401, 'TOKEN_INVALID');
    expectCode(await call(h.url, 'POST', '/portal/sign-in'), 401, 'TOKEN_MISSING');
  });
});
