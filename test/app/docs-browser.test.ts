import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPbs, type Harness } from '../support/harness.js';
import { accessibilityViolations, launchChromium } from '../support/browser.js';
import { TEST_DEADLINE_MS } from '../support/wait.js';

describe('the /docs page in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startPbs('sqlite');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('renders the operations from the OpenAPI document', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(TEST_DEADLINE_MS);
    await page.goto(`${h.url}/docs`);
    await page.waitForSelector('.opblock-summary-path');
    const title = await page.textContent('.info .title');
    expect(title).toContain('Partner Business Services');
    // pbs's, not the framework's: its title and mark, and the partner interfaces first in the spec's order.
    expect(await page.title()).toBe('pbs API — Partner Business Services');
    expect(await page.getAttribute('.topbar-wrapper img', 'src')).toContain('svg');
    expect(await page.isVisible('.download-url-wrapper')).toBe(false);
    const tags = await page.$$eval('.opblock-tag', (nodes) => nodes.map((n) => n.getAttribute('data-tag')));
    expect(tags).toEqual([
      'reservations',
      'advertising',
      'waitlist',
      'private reviews',
      'engagement metrics',
      'subscriptions',
      'leads',
      'businesses',
      'oauth',
      'portal',
      'operator sign-in',
      'operator',
      'system',
    ]);
    const described = await page.$$eval('.opblock-tag', (nodes) => nodes.map((n) => n.querySelector('small')?.textContent?.trim() ?? ''));
    expect(described.every((d) => d.length > 10)).toBe(true);
    const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((n) => n.getAttribute('data-path')));
    expect(paths).toContain('/oauth2/token');
    expect(paths).toContain('/admin/v1/partners');
    const shot = path.join(os.tmpdir(), 'pbs-docs.png');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
  });

  it('has no critical or serious accessibility violation, at 1280 and 390 px, an operation opened', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(TEST_DEADLINE_MS);
    await page.goto(`${h.url}/docs`);
    await page.waitForSelector('.opblock-summary-path');
    await page.click('.opblock-summary-control >> nth=0');
    await page.waitForSelector('.opblock-body');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page), `at ${width} px`).toEqual([]);
    }
  });
});
