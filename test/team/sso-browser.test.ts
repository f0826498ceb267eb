import type http from 'node:http';
import type { Browser } from 'playwright-core';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, startPbs, type Harness } from '../support/harness.js';
import { launchChromium } from '../support/browser.js';
import { freePort } from '../support/process.js';

/** Each test person's groups at the provider. */
const GROUPS: Record<string, string[]> = { alice: ['pbs-admins', 'staff'], bob: ['staff'], carol: ['staff'] };

/**
 * Issue 44 "single sign-on": a real OpenID Connect provider (the certified `oidc-provider`
 * package) on loopback, pbs as its relying party through `openid-client`, signed in through in
 * Debian's chromium: the role from a group claim, an invited person without a mapped group, one
 * neither invited nor mapped refused, and signing out.
 */
describe('operator single sign-on through an OpenID Connect provider', () => {
  let h: Harness;
  let provider: http.Server;
  let browser: Browser;

  beforeAll(async () => {
    const pbsPort = await freePort();
    const providerPort = await freePort();
    const issuer = `http://127.0.0.1:${providerPort}`;
    const oidc = new Provider(issuer, {
      clients: [
        {
          client_id: 'pbs',
          client_secret: 'a-test-client-secret-of-some-length',
          redirect_uris: [`http://127.0.0.1:${pbsPort}/operator/sso/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      claims: { email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      findAccount: (_ctx, sub) => ({
        accountId: sub,
        claims: () => ({ sub, email: `${sub}@corp.example`, email_verified: true, name: sub, groups: GROUPS[sub] ?? [] }),
      }),
      cookies: { keys: ['a-test-cookie-key'] },
    });
    provider = oidc.listen(providerPort, '127.0.0.1');
    h = await startPbs('sqlite', {
      env: {
        PORT: String(pbsPort),
        PBS_PUBLIC_URL: `http://127.0.0.1:${pbsPort}`,
        PBS_OIDC_ISSUER: issuer,
        PBS_OIDC_CLIENT_ID: 'pbs',
        PBS_OIDC_CLIENT_SECRET: 'a-test-client-secret-of-some-length',
        PBS_OIDC_ROLES: 'pbs-admins=admin,pbs-support=support',
        PBS_OIDC_NAME: 'Corp SSO',
      },
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await new Promise((resolve) => provider?.close(resolve));
  });

  /** Signs `login` in at the provider from pbs's SSO link; answers the page where it lands. */
  const signIn = async (login: string) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${h.url}/operator/sso`);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'anything');
    await page.click('button[type=submit]');
    // The provider asks once to let pbs have the claims.
    await page.waitForSelector('button[type=submit]');
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.pathname.startsWith('/console') || url.pathname.startsWith('/operator/sso/callback'));
    // A refusal page allows no script to fetch: the session is asked from a console page.
    const landed = new URL(page.url()).pathname.startsWith('/console') ? 'console' : ((await page.textContent('body')) ?? '');
    if (landed !== 'console') await page.goto(`${h.url}/console/`);
    const who = await page.evaluate(async () => {
      const r = await fetch('/admin/v1/session');
      return { status: r.status, body: await r.json() };
    });
    return { context, page, who, landed };
  };

  it('offers single sign-on where operators sign in', async () => {
    const methods = await call(h.url, 'GET', '/operator/sign-in-methods');
    expect(methods.body).toEqual({ password: true, sso: { name: 'Corp SSO', url: '/operator/sso' } });
  });

  it('signs a person in with the role their group maps to, and out', async () => {
    const { context, page, who } = await signIn('alice');
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(who.status).toBe(200);
    expect(who.body.operator).toMatchObject({ name: 'alice@corp.example', role: 'admin', via: 'session' });
    // The console's own page may change things with the session.
    const created = await page.evaluate(async () => {
      const r = await fetch('/admin/v1/partners', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"By SSO"}',
      });
      return r.status;
    });
    expect(created).toBe(201);
    const signedOut = await page.evaluate(async () => {
      await fetch('/admin/v1/session', { method: 'DELETE' });
      return (await fetch('/admin/v1/session')).status;
    });
    expect(signedOut).toBe(401);
    await context.close();
    const account = (await admin(h.url, 'GET', '/admin/v1/operators')).body.operators.find(
      (a: { email: string }) => a.email === 'alice@corp.example',
    );
    expect(account).toMatchObject({ role: 'admin', state: 'active', sign_in: { sso: true, password: false } });
    // The sign-in and the partner made are in the audit trail under the person's name.
    const trail = (await admin(h.url, 'GET', `/admin/v1/audit?actor=${account.id}`)).body.records.map((r: { action: string }) => r.action);
    expect(trail).toEqual(expect.arrayContaining(['SIGN-IN sso', 'POST /admin/v1/partners']));
  });

  it('lets an invited person in with the role given in pbs, and refuses one neither invited nor in a mapped group', async () => {
    const refused = await signIn('carol');
    expect(refused.who.status).toBe(401);
    expect(refused.landed).toContain('not an operator of this pbs');
    const callback = await call(h.url, 'GET', '/operator/sso/callback?code=x&state=y', { headers: { cookie: 'pbs_sso=forged' } });
    expect(callback.status).toBe(401);
    await refused.context.close();
    await admin(h.url, 'POST', '/admin/v1/operators', { json: { email: 'bob@corp.example', role: 'support' } });
    const bob = await signIn('bob');
    expect(bob.who.body.operator).toMatchObject({ name: 'bob@corp.example', role: 'support' });
    await bob.context.close();
  });

  it('refuses a callback that was not started here (no state cookie)', async () => {
    const r = await call(h.url, 'GET', '/operator/sso/callback?code=x&state=y');
    expect(r.status).toBe(401);
    expect(r.text).toContain('not started here');
  });
});
