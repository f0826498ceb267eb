import { createPbsClient, formBody, ok } from '@pbs/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, call } from '../support/harness.js';
import { eventually, type ServerProcess } from '../support/process.js';
import { Receiver } from '../support/receiver.js';
import { startBrowserRun, type BrowserRun } from '../support/browser-run.js';
import { signInToConsole } from '../support/browser.js';

const OPENINGS = 'GET /v3/bookings/{business_id}/openings';

/**
 * Issue 26's walk in Debian's chromium against a real pbs process with the demo dataset: the
 * operator issues a portal link from the console; the partner signs in with it; a reservation made
 * through the SDK shows in its request log with its hold and the event it caused; an error group
 * shows its hint; a test webhook arrives at a loopback receiver and is replayed; a fault rule makes
 * the next call fail and the log says so. Each portal page is saved as a screenshot.
 */
describe.each(['sqlite', 'postgres'] as const)('the partner portal in a real browser (%s)', (dialect) => {
  let run: BrowserRun;
  let server: ServerProcess;
  let page: Page;
  let credentials: Record<string, string>;
  let restaurant: string;
  const receiver = new Receiver();
  let hookUrl = '';
  const shot = (name: string) => run.shot(name);
  const open = async (hash: string) => {
    await page.goto(`${server.url}/portal#/${hash}`);
    await page.waitForSelector('section.page h1');
  };
  const sdk = () => createPbsClient({ baseUrl: server.url, auth: { apiKey: credentials.api_key }, maxRetries: 0 });

  beforeAll(async () => {
    run = await startBrowserRun(dialect, 'portal', { PBS_REQUEST_LOG_FLUSH_MS: '50' });
    ({ server, page, credentials, restaurant } = run);
  });
  afterAll(async () => {
    await receiver.stop().catch(() => {});
    await run?.close();
  });

  it('is signed in through a link the operator issues in the console, and served with a strict policy', async () => {
    const signedOut = await fetch(`${server.url}/portal`);
    expect(signedOut.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(signedOut.headers.get('cache-control')).toBe('no-cache');
    await page.goto(`${server.url}/portal`);
    await page.waitForSelector('.login input[name=api_key]');
    await shot('sign-in');

    // The operator, in the console: the partner's page, "Portal link".
    await signInToConsole(page, server.url, ADMIN_TOKEN);
    await page.goto(`${server.url}/console/#/partners?id=${credentials.partner_id}`);
    await page.click('[data-testid=portal-link]');
    const link = (await page.textContent('[data-testid=portal-url]'))!;
    const url = new URL(link);
    expect(url.pathname).toBe('/portal/sign-in');

    // The partner opens it (this browser has the operator's token in another page's storage only):
    // a page whose button signs in, so a link preview spends nothing.
    await page.goto(`${server.url}${url.pathname}${url.search}`);
    await shot('sign-in-link');
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=partner]');
    expect(page.url()).toBe(`${server.url}/portal`);
    expect(await page.textContent('[data-testid=partner]')).toContain(credentials.partner_id);
    // The link was single-use: pressing the button again says so, on a page.
    await page.goto(`${server.url}${url.pathname}${url.search}`);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=This link cannot sign you in');
  });

  it('shows a reservation made through the SDK with its hold and the event it caused', async () => {
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const pbs = sdk();
    const path = { business_id: restaurant };
    const openings = await ok(
      pbs.GET('/v3/bookings/{business_id}/openings', { params: { path, query: { date, time: '19:00', covers: 2 } } }),
    );
    const time = openings.reservation_times.find((d) => d.date === date)!.times[0].time;
    const form = { date, time, covers: 2, unique_id: 'portal-test' };
    const hold = await ok(pbs.POST('/v3/bookings/{business_id}/holds', { params: { path }, ...formBody(form) }));
    const guest = { first_name: 'Grace', last_name: 'Hopper', phone: '+14155550142', email: 'grace@example.com' };
    const reserved = await ok(
      pbs.POST('/v3/bookings/{business_id}/reservations', {
        params: { path },
        ...formBody({ ...form, ...guest, hold_id: hold.hold_id! }, { 'idempotency-key': `portal-${dialect}` }),
      }),
    );

    await open('requests');
    await page.waitForSelector('[data-testid=requests] >> text=POST /v3/bookings/{business_id}/reservations');
    expect(await page.textContent('[data-testid=requests]')).toContain('POST /v3/bookings/{business_id}/holds');
    await page.click('[data-testid=requests] >> text=POST /v3/bookings/{business_id}/reservations');
    await page.waitForSelector('[data-testid=request-body] >> text=[masked]');
    expect(await page.textContent('[data-testid=request-body]')).toContain(hold.hold_id);
    expect(await page.textContent('[data-testid=request-body]')).not.toContain('Hopper');
    expect(await page.textContent('[data-testid=response-body]')).toContain(reserved.reservation_id);
    expect(await page.textContent('[data-testid=request-summary]')).toContain(`portal-${dialect}`);
    await page.waitForSelector('[data-testid=caused] >> text=RESERVATION_CREATED_EVENT');
    // The URL says which entry is open: a reload shows the same.
    await page.reload();
    await page.waitForSelector('[data-testid=caused] >> text=RESERVATION_CREATED_EVENT');
    await shot('requests');
  });

  it('groups an error with its hint', async () => {
    await call(server.url, 'POST', `/v3/bookings/${restaurant}/holds`, {
      token: credentials.api_key,
      form: { date: '2031-01-01', time: '25:00', covers: '2' },
    });
    await open('errors');
    await page.waitForSelector('[data-testid=error-groups] >> text=DATE_TIME_VALIDATION_ERROR');
    expect(await page.textContent('[data-testid=error-groups]')).toContain('HH:MM');
    await page.click('[data-testid=error-groups] >> text=DATE_TIME_VALIDATION_ERROR');
    await page.waitForSelector('[data-testid=requests] >> text=DATE_TIME_VALIDATION_ERROR');
    await open('errors');
    await page.waitForSelector('[data-testid=error-groups] >> text=DATE_TIME_VALIDATION_ERROR');
    await shot('errors');
  });

  it('lists the businesses the partner may act for, by name and id', async () => {
    await open('businesses');
    // The demo partner is linked to every demo restaurant: 60, a page of 50.
    await page.waitForSelector(`[data-testid=businesses] >> text=${restaurant}`);
    expect(await page.textContent('.pager')).toContain('of 60');
    await shot('businesses');
  });

  it("starts a lead for one of the partner's businesses and speaks for the consumer (sandbox)", async () => {
    await open(`leads?business=${restaurant}`);
    await page.click('[data-testid=start-lead]');
    await page.waitForSelector('[data-testid=conversation] >> text=Hi there');
    await page.fill('input[name=consumer_text]', 'Do you cater on Sundays?');
    await page.click('[data-testid=consumer-says]');
    await page.waitForSelector('[data-testid=conversation] >> text=Do you cater on Sundays?');
    expect(await page.$$('.problem')).toEqual([]);
    await shot('lead-conversation');
    // Each event links to the deliveries of the webhook that announced it.
    await page.click('[data-testid=event-deliveries] >> nth=0');
    await page.waitForFunction(() => /#\/webhooks\?message_id=msg_/.test(window.location.hash));
    await page.waitForSelector('section.page h1 >> text=Webhooks');
    await open('leads');
  });

  it('sends a test webhook event to a loopback receiver and replays it', async () => {
    receiver.behaviour = Receiver.echoing(200);
    const url = (hookUrl = await receiver.start());
    await admin(server.url, 'PUT', `/admin/v1/partners/${credentials.partner_id}/webhook`, { json: { url, client_id: 'portal' } });
    await open('webhooks');
    await page.waitForSelector('[data-testid=endpoint] .badge-unverified');
    await page.click('[data-testid=verify]');
    await page.waitForSelector('[data-testid=endpoint] .badge-verified');

    await page.click('[data-testid=send-test-event]');
    const messageId = (await page.textContent('[data-testid=test-event-sent] code'))!;
    const arrived = () => receiver.posts().filter((post) => post.headers['webhook-id'] === messageId);
    await eventually(
      async () => arrived().length,
      (n) => n === 1,
      'the test event at the receiver',
    );
    expect(JSON.parse(arrived()[0].body).data.updates[0].test).toBe(true);

    await page.waitForSelector('[data-testid=deliveries] .badge-delivered');
    const deliveryId = (await page.getAttribute('[data-testid=deliveries] a[data-testid^=delivery-]', 'data-testid'))!.slice(
      'delivery-'.length,
    );
    await page.click(`[data-testid=delivery-${deliveryId}]`);
    await page.waitForSelector('[data-testid=attempts] [data-status="200"]');
    // The message as it was sent, and where it went.
    await page.waitForSelector('[data-testid=delivery-payload] >> text="test": true');
    expect(await page.textContent('[data-testid=delivery-url]')).toBe(url);
    await page.click(`[data-testid=redeliver-${deliveryId}]`);
    await eventually(
      async () => arrived().length,
      (n) => n === 2,
      'the replayed event at the receiver',
    );
    await shot('webhooks');
  });

  it('changes, removes and registers its own webhook endpoint', async () => {
    const url = hookUrl;
    await open('webhooks');
    await page.waitForSelector('[data-testid=endpoint]');
    await page.click('[data-testid=change-endpoint]');
    await page.fill('[data-testid=endpoint-form] input[name=url]', `${url}/moved`);
    await page.check('[data-testid=endpoint-form] input[name=RESERVATION_CREATED_EVENT]');
    await shot('webhook-endpoint-change');
    await page.click('[data-testid=save-endpoint]');
    await page.waitForSelector(`[data-testid=endpoint] >> text=${url}/moved`);
    // A new URL is verified again before anything is delivered to it.
    await page.waitForSelector('[data-testid=endpoint] .badge-unverified');
    const changed = (await admin(server.url, 'GET', `/admin/v1/partners/${credentials.partner_id}/webhook`)).body;
    expect(changed).toMatchObject({ url: `${url}/moved`, client_id: 'portal' });
    expect(changed.event_types).toContain('RESERVATION_CREATED_EVENT');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('[data-testid=remove-endpoint]');
    await page.waitForSelector('[data-testid=endpoint-form]');
    expect(await page.$('[data-testid=endpoint]')).toBeNull();
    expect((await admin(server.url, 'GET', `/admin/v1/partners/${credentials.partner_id}/webhook`)).status).toBe(404);
    await shot('webhook-endpoint-register');
    await page.fill('[data-testid=endpoint-form] input[name=url]', url);
    await page.click('[data-testid=save-endpoint]');
    await page.waitForSelector('[data-testid=endpoint] .badge-unverified');
    await page.click('[data-testid=verify]');
    await page.waitForSelector('[data-testid=endpoint] .badge-verified');
  });

  it('rolls its API key with an overlap, the new secret shown once, masked until revealed; revokes another credential', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const issued = (await admin(server.url, 'GET', `/admin/v1/partners/${credentials.partner_id}/credentials`)).body.credentials;
    const idOf = (kind: string) => issued.find((c: { kind: string }) => c.kind === kind).id as string;
    await open('keys');
    await page.waitForSelector('[data-testid=credentials] >> text=API key');
    expect(await page.textContent('[data-testid=credentials]')).not.toContain(credentials.api_key);
    await shot('keys');
    await page.selectOption('select[name=overlap]', '3600');
    await page.click(`[data-testid=roll-${idOf('api_key')}]`);
    await page.waitForSelector('[data-testid=new-secret]');
    // Masked until revealed; copied either way.
    expect(await page.textContent('[data-testid=new-secret]')).not.toMatch(/pbs_/);
    await shot('keys-rolled');
    await page.click('[data-testid=new-secret] button[aria-label="Copy API key"]');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    await page.click('[data-testid=new-secret] button[aria-label="Reveal API key"]');
    const revealed = (await page.textContent('[data-testid=secret-api-key]'))!;
    expect(revealed).toMatch(/^pbs_/);
    expect(copied).toBe(revealed);
    // The new key works, and the old one still does during the overlap.
    for (const key of [revealed, credentials.api_key])
      expect((await call(server.url, 'GET', '/v3/partner/restaurants?limit=1', { token: key })).status).toBe(200);
    await page.click('[data-testid=dismiss-secret]');
    expect(await page.$('[data-testid=new-secret]')).toBeNull();
    expect(await page.content()).not.toContain(revealed);
    await page.waitForSelector('[data-testid=credentials] >> text=old secret until');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`[data-testid=revoke-${idOf('basic')}]`);
    await page.waitForSelector('[data-testid=credentials] .badge-revoked');
    // The session that did it goes on.
    await open('requests');
    expect(await page.$('.login')).toBeNull();
    credentials.api_key = revealed;
  });

  it('links to the API reference', async () => {
    await open('requests');
    expect(await page.getAttribute('[data-testid=docs-link]', 'href')).toBe('/docs');
  });

  it('makes the next call fail by a fault rule, and the log says so', async () => {
    await open('faults');
    await page.selectOption('select[name=operation]', OPENINGS);
    await page.fill('input[name=status]', '503');
    await page.fill('input[name=retry_after_seconds]', '2');
    await page.fill('input[name=count]', '1');
    // Only for the restaurant, picked by a part of its name among the partner's businesses.
    const name = (await admin(server.url, 'GET', `/admin/v1/businesses?ids=${restaurant}`)).body.businesses[0].name as string;
    await page.fill('input[name=business_id]', name.slice(1, 6).toLowerCase());
    await page.click(`[role=option]:has-text(${JSON.stringify(restaurant)})`);
    expect(await page.inputValue('input[name=business_id]')).toBe(name);
    await page.click('[data-testid=add-fault]');
    await page.waitForSelector(`[data-testid=faults] >> text=${OPENINGS}`);
    expect(await page.textContent('[data-testid=faults]')).toContain(restaurant);
    await page.waitForSelector(`[data-testid=faults] >> text=${name}`);
    await shot('faults');

    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const failed = await call(server.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${date}&time=19:00&covers=2`, {
      token: credentials.api_key,
    });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('2');
    expect(failed.headers.get('pbs-fault-injected')).toEqual(expect.any(String));
    // One call only: the next reaches the API, and the rule is gone.
    const next = await call(server.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${date}&time=19:00&covers=2`, {
      token: credentials.api_key,
    });
    expect(next.status).toBe(200);

    await open(`requests?status=5xx`);
    await page.waitForSelector('[data-testid=requests] .badge-fault');
    await page.click(`[data-testid=requests] >> text=${OPENINGS}`);
    await page.waitForSelector('[data-testid=fault-marked]');
    expect(await page.textContent('[data-testid=fault-marked]')).toContain(failed.headers.get('pbs-fault-injected')!);
    await shot('fault-logged');
  });

  it('signs out, and then asks to sign in again', async () => {
    await open('requests');
    await page.click('button.logout');
    await page.waitForSelector('.login input[name=api_key]');
    // Signing in with the partner's own API key (sandbox).
    await page.fill('input[name=api_key]', credentials.api_key);
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=partner]');
    expect(run.errors).toEqual([]);
  });
});
