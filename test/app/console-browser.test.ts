import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, call, sampleBusiness } from '../support/harness.js';
import { eventually, type ServerProcess } from '../support/process.js';
import { Receiver } from '../support/receiver.js';
import { startBrowserRun, type BrowserRun } from '../support/browser-run.js';

/**
 * The operator console (/console) in Debian's chromium, against a real pbs process with the
 * demo dataset: signing in, a reservation made through the partner API appearing on the
 * restaurant's day, a failed webhook redelivered after the clock was moved from the console, and
 * every page rendered without an error, each saved as a screenshot.
 */
describe.each(['sqlite', 'postgres'] as const)('the operator console in a real browser (%s)', (dialect) => {
  let run: BrowserRun;
  let server: ServerProcess;
  let page: Page;
  let credentials: Record<string, string>;
  let restaurant: string;
  const receiver = new Receiver();
  const shot = (name: string) => run.shot(name);
  const open = async (hash: string) => {
    await page.goto(`${server.url}/console/#/${hash}`);
    await page.waitForSelector('section.page h1');
  };

  beforeAll(async () => {
    run = await startBrowserRun(dialect, 'console', { PBS_WEBHOOK_RETRY_SCHEDULE: '1' });
    ({ server, page, credentials, restaurant } = run);
  });
  afterAll(async () => {
    await receiver.stop().catch(() => {});
    await run?.close();
  });

  it('is served with a strict policy, its page never cached, its assets immutable', async () => {
    const index = await fetch(`${server.url}/console`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(index.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('referrer-policy')).toBe('no-referrer');
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())![1];
    const script = await fetch(`${server.url}${asset}`);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    const missing = await call(server.url, 'GET', '/console/assets/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect([403, 404]).toContain((await fetch(`${server.url}/console/assets/%2e%2e/%2e%2e/package.json`)).status);
    expect((await call(server.url, 'POST', '/console/assets/missing.js')).status).toBe(405);
  });

  it('signs in with the operator token only', async () => {
    await page.goto(`${server.url}/console`);
    await page.click('[data-testid=with-token]');
    await page.fill('input[name=token]', 'not-the-token');
    await page.click('button[type=submit]');
    await page.waitForSelector('.login .problem');
    await shot('login');
    await page.fill('input[name=token]', ADMIN_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=bookings-chart]');
    expect(await page.textContent('section.page h1')).toBe('Overview');
    // Signed in once per browser: an HttpOnly, SameSite=Strict cookie, no token in the page's storage.
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'pbs_operator');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    const another = await page.context().newPage();
    await another.goto(`${server.url}/console/#/partners`);
    await another.waitForSelector('section.page h1 >> text=Partners');
    await another.close();
  });

  it('shows a reservation made through the partner API on the restaurant’s day', async () => {
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const key = credentials.api_key;
    const openings = await call(server.url, 'GET', `/v3/bookings/${restaurant}/openings?date=${date}&time=19:00&covers=2`, { token: key });
    const time = openings.body.reservation_times.find((d: { date: string }) => d.date === date).times[0].time as string;
    const form = { date, time, covers: '2', unique_id: 'console-test' };
    const hold = await call(server.url, 'POST', `/v3/bookings/${restaurant}/holds`, { token: key, form });
    const reserved = await call(server.url, 'POST', `/v3/bookings/${restaurant}/reservations`, {
      token: key,
      form: {
        ...form,
        hold_id: hold.body.hold_id,
        first_name: 'Grace',
        last_name: 'Hopper',
        phone: '+14155550142',
        email: 'grace@example.com',
      },
    });
    expect(reserved.status).toBe(200);

    await open(`reservations?business=${restaurant}&date=${date}`);
    await page.waitForSelector('[data-testid=reservations] >> text=Grace Hopper');
    expect(await page.textContent('[data-testid=reservations]')).toContain(reserved.body.reservation_id);
    // The partner that booked it, by name.
    await page.waitForSelector('[data-testid=reservations] >> text=Demo Partner');
    await shot('reservations');
    // The day's booking shows on the overview's chart.
    await open('overview');
    await page.waitForSelector('[data-testid=bookings-chart] >> text=kept (1)');
    await shot('overview');
    // The request log shows the reservation as sent, the guest masked, and a refused call's hint.
    await call(server.url, 'POST', `/v3/bookings/${restaurant}/holds`, { token: key, form: { date, time: '25:00', covers: '2' } });
    const operation = 'POST /v3/bookings/{business_id}/reservations';
    await open(`requests?${new URLSearchParams({ partner_id: credentials.partner_id, operation })}`);
    await page.click(`[data-testid=requests] >> text=${operation}`);
    await page.waitForSelector('[data-testid=request-body] >> text=[masked]');
    expect(await page.textContent('[data-testid=request-body]')).not.toContain('Hopper');
    expect(await page.textContent('[data-testid=response-body]')).toContain(reserved.body.reservation_id);
    await page.waitForSelector('[data-testid=error-groups] >> text=DATE_TIME_VALIDATION_ERROR');
    expect(await page.textContent('[data-testid=error-groups]')).toContain('HH:MM');
    await shot('requests');
  });

  it('redelivers a failed webhook after the clock was moved past its retry window', async () => {
    let answer = 500;
    receiver.behaviour = (req, res) => {
      const token = new URL(req.url, 'http://x').searchParams.get('verification');
      if (req.method === 'GET' && token)
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verification: token }));
      res.writeHead(answer).end();
    };
    const url = await receiver.start();
    const partner = credentials.partner_id;
    expect((await admin(server.url, 'PUT', `/admin/v1/partners/${partner}/webhook`, { json: { url, client_id: 'console' } })).status).toBe(
      200,
    );
    expect((await admin(server.url, 'POST', `/admin/v1/partners/${partner}/webhook/verify`)).body.status).toBe('verified');
    await call(server.url, 'POST', '/v3/businesses/subscriptions', {
      token: credentials.api_key,
      json: { subscription_types: ['WEBHOOK'], business_ids: [restaurant] },
    });
    await eventually(
      async () =>
        (await call(server.url, 'GET', '/v3/businesses/subscriptions?subscription_type=WEBHOOK&limit=100', { token: credentials.api_key }))
          .body.subscriptions ?? [],
      (list: Array<{ business_id: string }>) => list.some((s) => s.business_id === restaurant),
      'the subscription',
    );
    await admin(server.url, 'POST', `/admin/v1/businesses/${restaurant}/events/leads`, { json: {} });
    const deliveries = async () =>
      (await admin(server.url, 'GET', `/admin/v1/webhook-deliveries?partner_id=${partner}`)).body.deliveries as Array<{
        id: string;
        status: string;
        attempts: number;
      }>;
    const [first] = await eventually(deliveries, (list) => list.length === 1 && list[0].attempts >= 1, 'a failed attempt');

    // The sandbox clock, moved from the console past the 24-hour retry window.
    await open('clock');
    const before = await page.textContent('[data-testid=clock-now]');
    await page.fill('input[name=minutes]', String(25 * 60));
    await page.click('[data-testid=advance]');
    await page.waitForFunction((old) => document.querySelector('[data-testid=clock-now]')?.textContent !== old, before);
    const after = (await page.textContent('[data-testid=clock-now]'))!;
    expect(Date.parse(after) - Date.parse(before!)).toBeGreaterThanOrEqual(25 * 3600_000);
    await shot('clock');
    await eventually(deliveries, (list) => list[0].status === 'failed', 'the delivery to fail');

    answer = 200;
    await open('webhooks?status=failed');
    await page.click(`[data-testid=redeliver-${first.id}]`);
    await eventually(deliveries, (list) => list[0].status === 'delivered', 'the redelivery');
    await open('webhooks');
    await page.waitForSelector('[data-testid=deliveries] .badge-delivered');
    await shot('webhooks');
    expect(receiver.posts().length).toBeGreaterThanOrEqual(2);

    // Another one fails for good; "Redeliver all failed" sends every failed message again.
    answer = 500;
    await admin(server.url, 'POST', `/admin/v1/businesses/${restaurant}/events/leads`, { json: {} });
    await eventually(deliveries, (list) => list.length === 2 && list[0].attempts >= 1, 'a second failed attempt');
    await admin(server.url, 'POST', '/admin/v1/clock/advance', { json: { minutes: 25 * 60 } });
    await eventually(deliveries, (list) => list[0].status === 'failed', 'the second delivery to fail');
    answer = 200;
    await open('webhooks?status=failed');
    await page.click('button >> text=Redeliver all failed');
    await eventually(deliveries, (list) => list.every((d) => d.status === 'delivered'), 'every delivery to be delivered');
  });

  it('opens an advertising job’s receipt, its rejection marked in the list', async () => {
    const basic: [string, string] = [credentials.basic_username, credentials.basic_password];
    const created = await call(server.url, 'POST', `/v1/reseller/program/create?business_id=${restaurant}&program_name=CPC&budget=1`, {
      basic,
    });
    expect(created.status, created.text).toBe(200);
    const jobId = created.body.job_id as string;
    await admin(server.url, 'POST', `/admin/v1/advertising/jobs/${jobId}/complete`);
    await open(`advertising?partner_id=${credentials.partner_id}`);
    await page.waitForSelector(`[data-testid=jobs] >> text=with rejections`);
    await page.click(`[data-testid=job-${jobId}]`);
    await page.waitForSelector('[data-testid=receipt-keys] >> text=INVALID_PRICE');
    expect(await page.textContent('[data-testid=receipt]')).toContain(jobId);
    await shot('advertising-job');
  });

  it('edits a restaurant’s reservation inventory in a checked form', async () => {
    await open(`businesses?id=${restaurant}`);
    await page.waitForSelector('[data-testid=inventory]');
    // A party range pbs would refuse is marked before anything is sent.
    await page.fill('input[name=party_max]', '11');
    await page.waitForSelector('[data-testid=inventory-problems] >> text=Party size');
    await page.fill('input[name=party_max]', '6');
    const closed = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    await page.fill('textarea[name=closed_dates]', closed);
    await page.click('[data-testid=save-inventory]');
    await page.waitForSelector('[data-testid=inventory-saved]');
    const saved = (await admin(server.url, 'GET', `/admin/v1/businesses/${restaurant}/reservation-settings`)).body;
    expect(saved.party_size.max).toBe(6);
    expect(saved.closed_dates).toContain(closed);
    await shot('business');
  });

  it('manages a partner without the API: its limits, business links, webhook endpoint and credentials', async () => {
    const made = (await admin(server.url, 'POST', '/admin/v1/partners', { json: { name: `Managed ${dialect}`, interfaces: ['waitlist'] } }))
      .body;
    await admin(server.url, 'POST', `/admin/v1/partners/${made.id}/credentials`, { json: { kind: 'api_key' } });
    const partner = () => admin(server.url, 'GET', `/admin/v1/partners/${made.id}`);
    const linked = async () =>
      (await admin(server.url, 'GET', `/admin/v1/partners/${made.id}/businesses?limit=100`)).body.businesses.map(
        (b: { business_id: string }) => b.business_id,
      );
    await open(`partners?id=${made.id}`);

    // Limits per second and per day; blank is the server's default.
    await page.click('[data-testid=limits-waitlist]');
    await page.fill('[data-testid=limits-form-waitlist] input[name=per_second]', '7');
    await page.fill('[data-testid=limits-form-waitlist] input[name=per_day]', '700');
    await page.click('[data-testid=save-limits-waitlist]');
    await page.waitForSelector('[data-testid=interfaces] >> text=700');
    expect((await partner()).body.interfaces.waitlist).toMatchObject({ enabled: true, per_second: 7, per_day: 700 });

    // Two businesses picked by name, linked at once; one unlinked; one more from an onboarding CSV.
    const [first, second, third] = (await admin(server.url, 'GET', '/admin/v1/businesses?city=Toronto&limit=3')).body.businesses as Array<{
      id: string;
      name: string;
    }>;
    for (const b of [first, second]) {
      await page.fill('[data-testid=link-form] input[role=combobox]', b.name.slice(0, 5));
      await page.click(`main [role=option]:has-text(${JSON.stringify(b.id)})`);
    }
    await page.fill('input[name=link-comment]', 'signed, with the contract');
    await shot('partner-links-picked');
    await page.click('[data-testid=link-picked]');
    await page.waitForSelector('[data-testid=links-said] >> text=Linked 2 businesses');
    expect((await linked()).sort()).toEqual([first.id, second.id].sort());
    await page.waitForSelector(`[data-testid=unlink-${first.id}]`);
    await page.click(`[data-testid=unlink-${first.id}]`);
    await eventually(linked, (ids) => ids.length === 1 && ids[0] === second.id, 'one business unlinked');
    await page.setInputFiles('input[name=links-csv]', {
      name: 'onboarding.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`business_id,comment\n${third.id},third location\n`),
    });
    await page.waitForSelector('[data-testid=links-said] >> text=from onboarding.csv');
    expect((await linked()).sort()).toEqual([second.id, third.id].sort());

    // Its webhook endpoint: registered, verified, removed.
    const hook = new Receiver();
    hook.behaviour = Receiver.echoing(200);
    try {
      const url = await hook.start();
      await page.click('[data-testid=register-endpoint]');
      await page.fill('[data-testid=endpoint-form] input[name=url]', url);
      await page.fill('[data-testid=endpoint-form] input[name=client_id]', 'managed-client');
      await page.click('[data-testid=save-endpoint]');
      await page.waitForSelector('[data-testid=partner-endpoint] .badge-unverified');
      await page.click('[data-testid=verify-partner-endpoint]');
      await page.waitForSelector('[data-testid=partner-endpoint] .badge-verified');
      expect((await admin(server.url, 'GET', `/admin/v1/partners/${made.id}/webhook`)).body).toMatchObject({
        url,
        client_id: 'managed-client',
      });
      await shot('partner-managed');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.click('[data-testid=remove-partner-endpoint]');
      await page.waitForSelector('[data-testid=register-endpoint]');
      expect((await admin(server.url, 'GET', `/admin/v1/partners/${made.id}/webhook`)).status).toBe(404);
    } finally {
      await hook.stop();
    }

    // A credential rolled: the new secret shown once, masked until revealed.
    const key = (await admin(server.url, 'GET', `/admin/v1/partners/${made.id}/credentials`)).body.credentials[0];
    await page.click(`[data-testid=roll-${key.id}]`);
    await page.waitForSelector('[data-testid=new-secret]');
    expect(await page.textContent('[data-testid=new-secret]')).not.toMatch(/pbs_/);
    await page.click('[data-testid=new-secret] button[aria-label="Reveal API key"]');
    expect(await page.textContent('[data-testid=secret-api-key]')).toMatch(/^pbs_/);
    await page.click('[data-testid=dismiss-secret]');
    expect(await page.$('[data-testid=new-secret]')).toBeNull();
  });

  it('finds businesses as the name is typed, and edits one: name, address, hours, categories, closing', async () => {
    const made = (
      await admin(server.url, 'POST', '/admin/v1/businesses', {
        json: { ...sampleBusiness({ name: `Quillon Bakery ${dialect}` }), attributes: { outdoor_seating: true } },
      })
    ).body;
    await open('businesses');
    await page.fill('input[name=q]', 'Quillon'); // no Enter: the list follows the typing
    await page.waitForSelector('[data-testid=businesses-found] >> text=1 business whose name starts with “Quillon”');
    await page.click(`[data-testid=businesses] >> text=Quillon Bakery ${dialect}`);
    await page.click('[data-testid=edit-business]');
    await page.fill('[data-testid=business-edit] input[name=name]', `Quillon Patisserie ${dialect}`);
    await page.fill('[data-testid=business-edit] input[name=address1]', '2 Baker Lane');
    await page.fill('[data-testid=business-edit] textarea[name=categories]', 'bakeries: Bakeries\ndesserts: Desserts');
    await page.fill('[data-testid=business-edit] input[name=hours-0]', '9:00-17:00');
    await page.click('[data-testid=save-business]');
    // A range that is not HH:MM-HH:MM is refused before anything is sent.
    await page.waitForSelector('.problem >> text=Monday: “9:00-17:00” is not HH:MM-HH:MM');
    await page.fill('[data-testid=business-edit] input[name=hours-0]', '09:00-17:00, 18:00-01:00');
    await page.fill('[data-testid=business-edit] input[name=hours-6]', '');
    await page.check('[data-testid=business-edit] input[name=is_closed]');
    await shot('business-edit');
    await page.click('[data-testid=save-business]');
    await page.waitForSelector(`section.page h1 >> text=Quillon Patisserie ${dialect}`);
    const saved = (await admin(server.url, 'GET', `/admin/v1/businesses/${made.id}`)).body;
    expect(saved).toMatchObject({
      name: `Quillon Patisserie ${dialect}`,
      is_closed: true,
      categories: [
        { alias: 'bakeries', title: 'Bakeries' },
        { alias: 'desserts', title: 'Desserts' },
      ],
      attributes: { outdoor_seating: true }, // what the form does not show is kept
      phone: '+14155550100',
    });
    expect(saved.location).toMatchObject({
      address1: '2 Baker Lane',
      city: 'San Francisco',
      display_address: ['2 Baker Lane', 'San Francisco, CA 94103'],
    });
    expect(saved.hours[0].open.filter((o: { day: number }) => o.day === 0)).toEqual([
      { day: 0, start: '0900', end: '1700', is_overnight: false },
      { day: 0, start: '1800', end: '0100', is_overnight: true },
    ]);
    expect(saved.hours[0].open.some((o: { day: number }) => o.day === 6)).toBe(false);
  });

  it('creates, changes and turns off an advertising promotion code', async () => {
    const code = `SPRING-${dialect.toUpperCase()}`;
    const promotion = async () =>
      (await admin(server.url, 'GET', '/admin/v1/advertising/promotions')).body.promotions.find((p: { code: string }) => p.code === code);
    await open('advertising');
    await page.click('[data-testid=new-promotion]');
    await page.fill('[data-testid=promotion-form] input[name=code]', code);
    await page.check('[data-testid=promotion-form] input[name=type-BP]');
    await page.fill('[data-testid=promotion-form] input[name=min_budget]', '100');
    await page.fill('[data-testid=promotion-form] input[name=months]', '3');
    await shot('promotion-form');
    await page.click('[data-testid=save-promotion]');
    await page.waitForSelector(`[data-testid=promotions] >> text=${code}`);
    expect(await promotion()).toEqual({
      code,
      program_types: ['CPC', 'BP'],
      min_budget: 10_000,
      max_budget: null,
      months: 3,
      active: true,
    });
    await page.click(`[data-testid=edit-promotion-${code}]`);
    await page.fill('[data-testid=promotion-form] input[name=max_budget]', '250.50');
    await page.click('[data-testid=save-promotion]');
    await eventually(promotion, (p) => p.max_budget === 25_050, 'the promotion changed');
    await page.click(`[data-testid=toggle-promotion-${code}]`);
    await eventually(promotion, (p) => p.active === false, 'the promotion turned off');
  });

  it('finds a partner, a business or a request from the navigation on any page', async () => {
    await open('overview');
    await page.fill('[data-testid=find] input[name=find]', 'demo part');
    await page.waitForSelector('[data-testid=find] [role=option] >> text=Demo Partner');
    await page.click('[data-testid=find] [role=option]:has-text("Demo Partner")');
    await page.waitForFunction((id) => window.location.hash === `#/partners?id=${id}`, credentials.partner_id);
    await page.fill('[data-testid=find] input[name=find]', restaurant);
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector(`[data-testid=find] [role=option] >> text=${restaurant}`);
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => window.location.hash === `#/businesses?id=${id}`, restaurant);
    await page.waitForSelector('[data-testid=edit-business]');
    await shot('found-business');
  });

  it('renders every page without an error', async () => {
    const reviewLine = JSON.stringify({
      business_id: restaurant,
      rating: 4,
      text: 'Imported from the console.',
      user: { name: 'Ada Lovelace' },
    });
    const pages: Array<[string, string, string]> = [
      ['partners', `partners?id=${credentials.partner_id}`, 'Credentials'],
      ['businesses', `businesses?id=${restaurant}`, 'Reservation inventory'],
      ['advertising', 'advertising', 'Jobs'],
      ['waitlist', `waitlist?business=${restaurant}`, 'Line'],
      ['reviews', `reviews?business=${restaurant}`, 'Imported'],
      ['leads', `leads?business=${restaurant}`, 'Start a lead'],
      ['business-users', `business-users?business=${restaurant}`, 'Stop managing'],
      ['engagement', `engagement?business=${restaurant}`, 'Weeks'],
      ['tasks', 'tasks', 'Payload'],
      ['imports', 'imports', 'JSON lines'],
    ];
    // A review imported through the console's import page first (progress, then the result).
    await open('imports');
    await page.selectOption('select[name=kind]', 'reviews');
    await page.setInputFiles('input[name=file]', {
      name: 'reviews.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${reviewLine}\n`),
    });
    await page.click('[data-testid=import]');
    await page.waitForSelector('[data-testid=import-result]');
    expect(await page.textContent('[data-testid=import-result]')).toContain('"created":1');
    // A business CSV goes whole; the page says how many imported businesses search will not list, and why (issue 40 §6).
    await page.selectOption('select[name=kind]', 'businesses');
    await page.setInputFiles('input[name=file]', {
      name: 'businesses.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'name,city,state,country,timezone,latitude,longitude\nCSV Corner,San Francisco,CA,US,America/Los_Angeles,37.77,-122.42\n',
      ),
    });
    await page.click('[data-testid=import]');
    await page.waitForSelector('[data-testid=import-notice]');
    expect(await page.textContent('[data-testid=import-notice]')).toContain(
      '1 of the 1 imported businesses will not appear in search: 1 without reviews',
    );
    for (const [name, hash, text] of pages) {
      await open(hash);
      await page.waitForSelector(`main >> text=${text}`);
      expect(await page.$$('.problem'), name).toEqual([]);
      await shot(name);
    }
    // A business user added for a business, shown among those who manage it.
    await open(`business-users?business=${restaurant}`);
    await page.fill('input[name=user-name]', 'Console Owner');
    await page.fill('input[name=user-email]', 'console.owner@example.com');
    await page.click('[data-testid=add-business-user]');
    await page.waitForSelector('[data-testid=business-users] >> text=console.owner@example.com');
    // A password for signing in outside the sandbox: kept as a hash, shown only as "set".
    await page.fill('input[name=password-user]', 'demo-owner-2');
    await page.fill('input[name=password]', 'correct horse battery');
    await page.click('[data-testid=set-password]');
    await eventually(
      async () => (await admin(server.url, 'GET', '/admin/v1/business-users/demo-owner-2')).body.has_password,
      (set) => set === true,
      'the password set from the console',
    );
    expect(await page.inputValue('input[name=password]')).toBe('');
    // A lead started from the console, and the consumer's reply, in its conversation.
    await open(`leads?business=${restaurant}`);
    await page.click('[data-testid=start-lead]');
    await page.waitForSelector('[data-testid=conversation] >> text=Hi there');
    await page.fill('input[name=consumer_text]', 'Is Thursday possible?');
    await page.click('[data-testid=consumer-says]');
    await page.waitForSelector('[data-testid=conversation] >> text=Is Thursday possible?');
    expect(await page.$$('.problem')).toEqual([]);
    await shot('lead-conversation');
    // Ids read exactly as they are (a heading once upper-cased them), and a picked business shows its name.
    await open(`partners?id=${credentials.partner_id}`);
    expect(await page.textContent('[data-testid=id]')).toBe(credentials.partner_id);
    // Where its app receives business users' authorization codes.
    await page.fill('textarea[name=redirect-uris]', 'https://app.example.com/callback\nhttp://127.0.0.1:9/cb');
    await page.click('[data-testid=save-redirect-uris]');
    await eventually(
      async () => (await admin(server.url, 'GET', `/admin/v1/partners/${credentials.partner_id}/redirect-uris`)).body.redirect_uris,
      (uris) => uris.length === 2,
      'the redirect URIs saved from the console',
    );
    await admin(server.url, 'PUT', `/admin/v1/partners/${credentials.partner_id}/redirect-uris`, { json: { redirect_uris: [] } });
    await open(`reviews?business=${restaurant}`);
    await page.waitForSelector('[data-testid=picked-business]');
    // The business picker types ahead: a click on a suggestion, or the keyboard (Enter picks the highlighted one).
    const name = (await admin(server.url, 'GET', `/admin/v1/businesses?ids=${restaurant}`)).body.businesses[0].name as string;
    await open('waitlist');
    await page.fill('main input[role=combobox]', name.slice(0, 4));
    await page.click(`main [role=option]:has-text(${JSON.stringify(name)})`);
    await page.waitForFunction((id) => window.location.hash.includes(`business=${id}`), restaurant);
    await open('engagement');
    await page.fill('main input[role=combobox]', name);
    await page.waitForSelector(`main [role=option][aria-selected=true]:has-text(${JSON.stringify(name)})`);
    expect(await page.getAttribute('main input[role=combobox]', 'aria-expanded')).toBe('true');
    await shot('business-picker');
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => window.location.hash.includes(`business=${id}`), restaurant);
    await page.waitForSelector('[data-testid=picked-business]');
    expect(await page.inputValue('main input[role=combobox]')).toBe(name);
    // Text left unpicked does not stay in the input: it shows what the page uses.
    await page.fill('main input[role=combobox]', 'no such business');
    await page.keyboard.press('Tab');
    await page.waitForFunction((n) => document.querySelector<HTMLInputElement>('main input[role=combobox]')?.value === n, name);
    // The partner filter types ahead over names (any part of one); emptied, it means any partner.
    await open('webhooks');
    await page.fill('input[name=partner_id]', 'demo');
    await page.click('main [role=option]:has-text("Demo Partner")');
    await page.waitForFunction((id) => window.location.hash.includes(`partner_id=${id}`), credentials.partner_id);
    // The input shows the picked partner's name once the page has read the filter back from the hash.
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('input[name=partner_id]')?.value === 'Demo Partner');
    await page.fill('input[name=partner_id]', '');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !window.location.hash.includes('partner_id='));
    // The engagement chart draws the restaurant's four scored weeks.
    await open(`engagement?business=${restaurant}`);
    await page.waitForSelector('[data-testid=engagement-chart-engagement_metric] polyline');
    for (const metric of ['engagement_metric', 'intent_metric', 'transaction_metric'])
      expect(await page.$$(`[data-testid=engagement-chart-${metric}] circle`), metric).toHaveLength(4);
    expect(run.errors).toEqual([]);
  });
});
