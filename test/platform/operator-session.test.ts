import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorSessions } from '../../src/platform/http/operator-session.js';
import { ADMIN_TOKEN, call, dialects, expectCode, startPbs, type Harness } from '../support/harness.js';

/** Issue 27 "sign-in once per browser": the operator token exchanged for an HttpOnly console session cookie. */
describe.each(dialects)('console sessions on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPbs(dialect, { env: { PBS_OPERATOR_SESSION_HOURS: '2' } });
  });
  afterAll(() => h.close());

  const signIn = async () => {
    const r = await call(h.url, 'POST', '/admin/v1/session', { token: ADMIN_TOKEN });
    expect(r.status, r.text).toBe(200);
    return { cookie: r.headers.get('set-cookie')!, answer: r.body };
  };

  it('signs a browser in with the token, answers reads and same-origin changes by the cookie, and signs out', async () => {
    const { cookie, answer } = await signIn();
    expect(cookie).toMatch(/^pbs_operator=\d+\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/admin; Max-Age=7200$/);
    expect(Date.parse(answer.expires_at) - h.wall.ms).toBe(2 * 3_600_000);
    const session = { cookie: cookie.split(';')[0] };
    expect((await call(h.url, 'GET', '/admin/v1/partners', { headers: session })).status).toBe(200);
    expect((await call(h.url, 'GET', '/admin/v1/session', { headers: session })).body).toEqual({
      expires_at: answer.expires_at,
      operator: { name: 'bootstrap token', role: 'admin', via: 'bootstrap', account_id: null },
    });
    // A session cannot extend itself: only the token starts one.
    expectCode(await call(h.url, 'POST', '/admin/v1/session', { headers: { ...session, origin: h.url } }), 401, 'TOKEN_MISSING');
    // A change with the cookie: from pbs's own pages only.
    const created = await call(h.url, 'POST', '/admin/v1/partners', {
      headers: { ...session, origin: h.url },
      json: { name: 'By cookie' },
    });
    expect(created.status, created.text).toBe(201);
    expectCode(
      await call(h.url, 'POST', '/admin/v1/partners', {
        headers: { ...session, origin: 'https://elsewhere.example' },
        json: { name: 'x' },
      }),
      403,
      'AUTHORIZATION_ERROR',
    );
    expectCode(
      await call(h.url, 'POST', '/admin/v1/partners', { headers: { ...session, 'sec-fetch-site': 'cross-site' }, json: { name: 'x' } }),
      403,
      'AUTHORIZATION_ERROR',
    );
    // Behind a proxy that ends TLS and rewrites Host: the console's own page still passes.
    for (const behindProxy of <Array<Record<string, string>>>[
      { 'sec-fetch-site': 'same-origin', origin: 'https://console.example', host: 'pbs:8080' },
      { origin: 'https://console.example', 'x-forwarded-host': 'console.example', 'x-forwarded-proto': 'https' },
    ]) {
      const r = await call(h.url, 'POST', '/admin/v1/partners', { headers: { ...session, ...behindProxy }, json: { name: 'Proxied' } });
      expect(r.status, r.text).toBe(201);
    }
    const refused = await call(h.url, 'POST', '/admin/v1/partners', {
      headers: { ...session, origin: 'https://console.example' },
      json: { name: 'x' },
    });
    expectCode(refused, 403, 'AUTHORIZATION_ERROR');
    expect(refused.body.error.description).toContain('PBS_PUBLIC_URL');
    // A forged or altered cookie is no session; signing out clears it.
    const forged = { cookie: session.cookie.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`) };
    expectCode(await call(h.url, 'GET', '/admin/v1/partners', { headers: forged }), 401, 'TOKEN_INVALID');
    const out = await call(h.url, 'DELETE', '/admin/v1/session', { headers: { ...session, origin: h.url } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
  });

  it('ends after its lifetime (wall time)', async () => {
    const session = { cookie: (await signIn()).cookie.split(';')[0] };
    h.wall.tick(2 * 3_600_000 - 1_000);
    expect((await call(h.url, 'GET', '/admin/v1/clock', { headers: session })).status).toBe(200);
    h.wall.tick(2_000);
    expectCode(await call(h.url, 'GET', '/admin/v1/clock', { headers: session }), 401, 'TOKEN_INVALID');
    // The token itself still works, and no token and no cookie is 401 TOKEN_MISSING.
    expect((await call(h.url, 'GET', '/admin/v1/clock', { token: ADMIN_TOKEN })).status).toBe(200);
    expectCode(await call(h.url, 'GET', '/admin/v1/clock'), 401, 'TOKEN_MISSING');
  });
});

describe('a console session and the operator token', () => {
  it('ends when the token is replaced', async () => {
    let hash: string | undefined = 'hash-of-the-first-token';
    const key = Buffer.alloc(32, 7);
    const sessions = new OperatorSessions(
      async () => key,
      async () => hash,
      3_600_000,
      () => 1_000,
    );
    const { value } = await sessions.issue();
    expect(await sessions.verify(value)).toBe(1_000 + 3_600_000);
    hash = 'hash-of-a-new-token';
    expect(await sessions.verify(value)).toBeUndefined();
    expect(await sessions.verify('not-a-session')).toBeUndefined();
  });
});
