import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call } from '../support/harness.js';
import { startBrowserRun, type BrowserRun } from '../support/browser-run.js';
import { signInToConsole } from '../support/browser.js';

/**
 * A partner's app as a real one is written: `/start` sends the business user's browser to pbs's
 * authorization page with PKCE; `/callback` redeems the code, reads the lead, replies, and shows
 * what it did. It listens on loopback, which a sandbox partner may use as its redirect URI.
 */
function partnerApp(pbs: string, client: { id: string; secret: string }, leadId: string) {
  const verifiers = new Map<string, string>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://app');
      const redirect = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
      if (url.pathname === '/start') {
        const state = randomBytes(8).toString('hex');
        const verifier = randomBytes(40).toString('base64url');
        verifiers.set(state, verifier);
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const query = new URLSearchParams({
          client_id: client.id,
          response_type: 'code',
          scope: 'leads',
          redirect_uri: redirect,
          state,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        res.writeHead(302, { location: `${pbs}/oauth2/authorize?${query}` }).end();
        return;
      }
      if (url.pathname === '/callback') {
        const verifier = verifiers.get(url.searchParams.get('state') ?? '');
        const code = url.searchParams.get('code');
        if (!verifier || !code) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`refused: ${url.searchParams.get('error') ?? 'no state'}`);
          return;
        }
        const form = {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirect,
          code_verifier: verifier,
          client_id: client.id,
          client_secret: client.secret,
        };
        const token = (await call(pbs, 'POST', '/oauth2/token/v3', { form })).body.access_token as string;
        const lead = (await call(pbs, 'GET', `/v3/leads/${leadId}`, { token })).body;
        const replied = await call(pbs, 'POST', `/v3/leads/${leadId}/events`, {
          token,
          json: { request_content: `Hello ${lead.user.display_name}, we would love to cater.`, request_type: 'TEXT' },
        });
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<h1 data-testid="app">Connected</h1><p data-testid="lead">${lead.project.job_names[0]}</p><p data-testid="replied">${replied.status}</p>`,
          );
        return;
      }
      res.writeHead(404).end();
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  return server;
}

/**
 * Issue 42's browser test: a business user, sent by a partner's app, signs in on pbs's
 * authorization page and allows; the app gets its code and token, reads the lead and replies;
 * the reply shows in the console's view of the conversation.
 */
describe.each(['sqlite', 'postgres'] as const)('a business user authorizes a partner app in a real browser (%s)', (dialect) => {
  let run: BrowserRun;
  let page: Page;
  let app: http.Server;
  let appUrl: string;

  beforeAll(async () => {
    run = await startBrowserRun(dialect, 'leads');
    page = run.page;
    const { credentials } = run;
    app = partnerApp(run.server.url, { id: credentials.oauth_client_id, secret: credentials.oauth_client_secret }, 'demo-lead-catering');
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => app?.close(resolve));
    await run?.close();
  });

  it('signs in on the consent page, allows, and the app reads and answers the lead', async () => {
    await page.goto(`${appUrl}/start`);
    await page.waitForSelector('h1 >> text=Demo Partner asks to act for you');
    expect(await page.textContent('body')).toContain('Read your leads');
    await run.shot('authorize');
    // One click: the sandbox lists the demo's business users as "Allow as …" buttons.
    await page.click('[data-testid=sign-in-as] button[value=demo-owner-6]');
    await page.waitForSelector('[data-testid=app]');
    // A restaurant's request: catering, a private event or a large group (drafted at random).
    expect(await page.textContent('[data-testid=lead]')).toMatch(/\S/);
    expect(await page.textContent('[data-testid=replied]')).toBe('201');
    expect(run.errors).toEqual([]);
  });

  it('shows the reply in the console’s view of the conversation', async () => {
    await signInToConsole(page, run.server.url, ADMIN_TOKEN);
    const business = (await call(run.server.url, 'GET', '/admin/v1/leads/demo-lead-catering', { token: ADMIN_TOKEN })).body.lead
      .business_id;
    await page.goto(`${run.server.url}/console/#/leads?business=${business}&lead=demo-lead-catering`);
    await page.waitForSelector('[data-testid=conversation] >> text=we would love to cater');
    await run.shot('lead-reply-in-console');
    // The request log leads there too: the app's reply, whole, links to the lead.
    await page.goto(`${run.server.url}/console/#/requests?operation=${encodeURIComponent('POST /v3/leads/{lead_id}/events')}`);
    await page.click('[data-testid=requests] >> text=POST /v3/leads/{lead_id}/events');
    await page.click('[data-testid=request-lead]');
    await page.waitForSelector('[data-testid=conversation] >> text=we would love to cater');
    expect(run.errors).toEqual([]);
  });

  it('sends a denial back to the app as access_denied', async () => {
    await page.goto(`${appUrl}/start`);
    await page.waitForSelector('button[value=deny]');
    await page.click('button[value=deny]');
    await page.waitForSelector('text=refused: access_denied');
  });
});
