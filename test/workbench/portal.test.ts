import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  call,
  createPartner,
  dialects,
  expectCode,
  linkedBusiness,
  portalSession,
  spendPortalLink,
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
    const r = await spendPortalLink(h, link.body.url);
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
    // Single use: the same link again is refused, on a page that says what to do.
    const again = await spendPortalLink(h, link);
    expect(again.status).toBe(401);
    expect(again.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await again.text()).toContain('ask your platform operator for a new one');
  });

  it('spends a link only when its page is submitted, never when it is merely opened', async () => {
    const link = (await admin(h.url, 'POST', `/admin/v1/partners/${a.partner.id}/portal-links`)).body.url as string;
    // A link preview, a mail scanner: GETs, as often as they like.
    for (let i = 0; i < 3; i++) {
      const opened = await fetch(link.replace(h.pbs.ctx.config.publicUrl, h.url), { redirect: 'manual' });
      expect(opened.status).toBe(200);
      expect(opened.headers.get('set-cookie')).toBeNull();
      expect(opened.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await opened.text()).toContain('<form method="post" action="/portal/sign-in/link">');
    }
    expect((await spendPortalLink(h, link)).status).toBe(303);
    // Another site's page cannot sign a browser in with a link of its choosing.
    const other = (await admin(h.url, 'POST', `/admin/v1/partners/${a.partner.id}/portal-links`)).body.url as string;
    const token = new URL(other).searchParams.get('token')!;
    const crossSite = await fetch(`${h.url}/portal/sign-in/link`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ token }).toString(),
    });
    expectCode({ status: crossSite.status, body: await crossSite.json(), text: '' }, 403, 'AUTHORIZATION_ERROR');
    expect(crossSite.headers.get('set-cookie')).toBeNull();
    // A program (no Accept: text/html) gets the catalogue's JSON for a link that cannot sign in.
    const program = await fetch(`${h.url}/portal/sign-in/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'spent' }).toString(),
    });
    expectCode({ status: program.status, body: await program.json(), text: '' }, 401, 'TOKEN_INVALID');
    expect((await spendPortalLink(h, other)).status).toBe(303);
  });

  it('refuses a link after 15 minutes of wall time, whatever the sandbox clock says', async () => {
    const link = (await admin(h.url, 'POST', `/admin/v1/partners/${a.partner.id}/portal-links`)).body.url as string;
    // The sandbox clock moving on is no reason for a link to end…
    h.clock.advance(24 * 3_600_000);
    const kept = (await admin(h.url, 'POST', `/admin/v1/partners/${a.partner.id}/portal-links`)).body.url as string;
    expect((await spendPortalLink(h, kept)).status).toBe(303);
    // …but 15 minutes passing is.
    h.wall.tick(15 * 60_000 + 1);
    expect((await spendPortalLink(h, link)).status).toBe(401);
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

  it('ends sessions when the operator revokes them or a credential is rotated, even with the sandbox clock moved back', async () => {
    const first = (await signIn(a)).cookie;
    expect((await admin(h.url, 'DELETE', `/admin/v1/partners/${a.partner.id}/portal-sessions`)).body.revoked).toBeGreaterThanOrEqual(1);
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(first)), 401, 'TOKEN_INVALID');
    const second = (await signIn(a)).cookie;
    // A new credential ends nothing.
    expect((await admin(h.url, 'POST', `/admin/v1/partners/${a.partner.id}/credentials`, { json: { kind: 'api_key' } })).status).toBe(201);
    expect((await call(h.url, 'GET', '/portal/v1/me', as(second))).status).toBe(200);
    // The rotation happens "before" the session began, on the sandbox clock: it ends the session all the same.
    h.clock.advance(-3_600_000);
    expect((await admin(h.url, 'POST', `/admin/v1/credentials/${a.basic.id}/rotate`)).status).toBe(200);
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(second)), 401, 'TOKEN_INVALID');
    // And a second rotation at the very same (frozen) moment ends the next session too.
    const third = (await signIn(a)).cookie;
    expect((await admin(h.url, 'POST', `/admin/v1/credentials/${a.basic.id}/rotate`)).status).toBe(200);
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(third)), 401, 'TOKEN_INVALID');
    h.clock.advance(3_600_000);
  });

  it('gives a disabled partner no portal: its sessions end, and no link or key signs it in', async () => {
    const c = await createPartner(h.url, ['reservations'], 'Partner C');
    const session = (await signIn(c)).cookie;
    const pending = (await admin(h.url, 'POST', `/admin/v1/partners/${c.partner.id}/portal-links`)).body.url as string;
    expect((await admin(h.url, 'POST', `/admin/v1/partners/${c.partner.id}/disable`)).status).toBe(200);
    expectCode(await call(h.url, 'GET', '/portal/v1/me', as(session)), 401, 'TOKEN_INVALID');
    // Nothing it could do in the portal: read its log, rotate its webhook secret, add a fault rule.
    for (const [method, path] of [
      ['GET', '/portal/v1/request-log'],
      ['POST', '/portal/v1/webhooks/endpoint/rotate-secret'],
      ['POST', '/portal/v1/faults'],
    ] as const)
      expectCode(
        await call(h.url, method, path, as(session, { headers: { origin: h.url }, ...(method === 'POST' ? { json: {} } : {}) })),
        401,
        'TOKEN_INVALID',
      );
    expectCode(await admin(h.url, 'POST', `/admin/v1/partners/${c.partner.id}/portal-links`), 403, 'AUTHORIZATION_ERROR');
    const refused = await spendPortalLink(h, pending);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('disabled');
    expectCode(await call(h.url, 'POST', '/portal/sign-in', { token: c.apiKey.api_key }), 403, 'AUTHORIZATION_ERROR');
    // Enabled again, it signs in again.
    await admin(h.url, 'POST', `/admin/v1/partners/${c.partner.id}/enable`);
    expect((await call(h.url, 'GET', '/portal/v1/me', as((await signIn(c)).cookie))).status).toBe(200);
  });

  it('takes a change from its own pages behind a proxy that ends TLS or rewrites the host, and says why it refuses one', async () => {
    const { cookie } = await signIn(a);
    const change = (headers: Record<string, string>) => call(h.url, 'POST', '/portal/v1/faults', as(cookie, { headers, json: {} }));
    // The browser vouches for the page (Sec-Fetch-Site), whatever Host the proxy sent on.
    expect((await change({ 'sec-fetch-site': 'same-origin', origin: 'https://portal.example', host: 'pbs:8080' })).status).toBe(400);
    // Without it, the Origin the proxy forwarded for, or PBS_PUBLIC_URL's.
    expect(
      (await change({ origin: 'https://portal.example', 'x-forwarded-host': 'portal.example', 'x-forwarded-proto': 'https' })).status,
    ).toBe(400);
    expect((await change({ origin: new URL(h.pbs.ctx.config.publicUrl).origin })).status).toBe(400);
    const refused = await change({ origin: 'https://evil.example' });
    expectCode(refused, 403, 'AUTHORIZATION_ERROR');
    expect(refused.body.error.description).toContain('PBS_PUBLIC_URL');
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

/** Issue 39: a signed-in portal session has a rate limit of its own, not its address's. */
describe.each(dialects)('portal rate limits on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_PORTAL_RATE_LIMIT_PER_SECOND: '2', PBS_PUBLIC_RATE_LIMIT_PER_SECOND: '1' } });
  });
  afterAll(() => h.close());

  it('limits a signed-in session by itself, and requests without a session by their address', async () => {
    const p = await createPartner(h.url, ['reservations'], 'Busy Partner');
    // Signing in is a public route: the address's bucket (a burst of 2) refills between the two.
    const one = await portalSession(h, p.partner.id);
    h.wall.tick(10_000);
    const two = await portalSession(h, p.partner.id);
    h.wall.tick(10_000);
    const me = (headers: Record<string, string>) => call(h.url, 'GET', '/portal/v1/me', { headers });
    // Without a session: the address's bucket.
    expectCode(await me({}), 401, 'TOKEN_MISSING');
    expectCode(await me({}), 401, 'TOKEN_MISSING');
    const anonymous = await me({});
    expectCode(anonymous, 429, 'TOO_MANY_REQUESTS_PER_SECOND');
    // Each session its own burst of 4, though its address has none left.
    for (const session of [one, two]) {
      for (let i = 0; i < 4; i++) expect((await me({ cookie: session.cookie })).status).toBe(200);
      const limited = await me({ cookie: session.cookie });
      expectCode(limited, 429, 'TOO_MANY_REQUESTS_PER_SECOND');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
