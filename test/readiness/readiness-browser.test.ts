import { createPbsClient, formBody, ok } from '@pbs/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../support/harness.js';
import type { ServerProcess } from '../support/process.js';
import { startBrowserRun, type BrowserRun } from '../support/browser-run.js';
import { signInToConsole } from '../support/browser.js';

/**
 * Issue 45 in Debian's chromium against a real pbs process with the demo dataset: the partner's
 * readiness page turns milestones green from its own calls, a drill started there is graded as
 * its client rides it out, and the operator approves the partner in the console.
 */
describe('launch readiness in a real browser (sqlite)', () => {
  let run: BrowserRun;
  let server: ServerProcess;
  let page: Page;
  let credentials: Record<string, string>;
  let restaurant: string;
  const sdk = () => createPbsClient({ baseUrl: server.url, auth: { apiKey: credentials.api_key } });

  beforeAll(async () => {
    run = await startBrowserRun('sqlite', 'readiness', { PBS_REQUEST_LOG_FLUSH_MS: '50' });
    ({ server, page, credentials, restaurant } = run);
  });
  afterAll(async () => {
    await run?.close();
  });

  it('shows the partner its milestones, and grades a drill it starts', async () => {
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const path = { business_id: restaurant };
    const openings = await ok(
      sdk().GET('/v3/bookings/{business_id}/openings', { params: { path, query: { date, time: '19:00', covers: 2 } } }),
    );
    const time = openings.reservation_times.find((d) => d.date === date)!.times.find((t) => !t.credit_card_required)!.time;

    await page.goto(`${server.url}/portal`);
    await page.fill('.login input[name=api_key]', credentials.api_key);
    await page.click('.login button[type=submit]');
    await page.waitForSelector('[data-testid=partner]');
    await page.goto(`${server.url}/portal#/readiness`);
    await page.waitForSelector('[data-testid=readiness-reservations]');
    const openingsRow = page.locator('[data-testid=readiness-reservations] tr', { hasText: 'Reads openings' });
    expect(await openingsRow.locator('.badge').textContent()).toBe('green');
    const holdRow = page.locator('[data-testid=readiness-reservations] tr', { hasText: 'Holds, then reserves' });
    expect(await holdRow.textContent()).toContain('Hold a slot, then reserve it within 5 minutes');
    await run.shot('portal-readiness');

    // A drill from the page: the next two holds answer 503 with Retry-After: 2; the SDK waits them out.
    await page.selectOption('select[name=drill-kind]', 'retry_after');
    await page.click('[data-testid=start-drill]');
    await page.waitForSelector('[data-testid=drills] >> text=running');
    const form = { date, time, covers: 2, unique_id: 'browser-drill' };
    await ok(sdk().POST('/v3/bookings/{business_id}/holds', { params: { path }, ...formBody(form) }));
    await page.waitForSelector('[data-testid=drills] >> text=passed');
    expect(await page.textContent('[data-testid=drills]')).toContain('resilience.retry_after: shown');
    await page.waitForSelector('[data-testid=readiness-resilience] tr:has-text("Waits Retry-After after a 503") .badge:text("green")');
    await run.shot('portal-readiness-drill');
  });

  it('lets the operator read it and approve the partner for launch in the console', async () => {
    await signInToConsole(page, server.url, ADMIN_TOKEN);
    await page.goto(`${server.url}/console/#/partners?id=${credentials.partner_id}`);
    await page.waitForSelector('[data-testid=readiness-reservations]');
    await page.fill('input[name=approval-note]', 'Drills passed');
    await page.click('[data-testid=approve-launch]');
    await page.waitForSelector('[data-testid=readiness-score] >> text=approved by bootstrap token');
    // The partner list says it too, beside each partner's score.
    await page.reload();
    await page.waitForSelector('[data-testid=partners] >> text=· approved');
    await run.shot('console-readiness');
    // Every partner, most ready first: the server's ranking, this partner among them.
    await page.check('input[name=by-readiness]');
    const ranked = page.locator('[data-testid=partners-by-readiness] tr', {
      has: page.locator(`a[href="#/partners?id=${credentials.partner_id}"]`),
    });
    await ranked.locator('.badge:text("approved")').waitFor();
    expect(await ranked.textContent()).toMatch(/reservations \d+ %/);
    await run.shot('console-readiness-ranking');
    expect(run.errors).toEqual([]);
  });
});
