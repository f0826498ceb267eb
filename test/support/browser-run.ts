import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_TOKEN, call } from './harness.js';
import { processTarget, startServerProcess, stopStrayServers, type ServerProcess } from './process.js';
import { accessibilityViolations, launchChromium } from './browser.js';
import { TEST_DEADLINE_MS } from './wait.js';

/** Where browser tests leave their screenshots (kept after the run, not committed). */
const SHOTS = path.resolve(import.meta.dirname, '../..', '.pbs-test', 'screenshots');

/** A pbs process with the demo dataset, and Chromium on one page of it: what the console and portal tests drive. */
export interface BrowserRun {
  server: ServerProcess;
  browser: Browser;
  page: Page;
  /** The demo partner's secrets and the operator token, as the sandbox saved them. */
  credentials: Record<string, string>;
  /** The first demo restaurant. */
  restaurant: string;
  /** Page errors and Content-Security-Policy violations seen so far (a test ends expecting none). */
  errors: string[];
  /**
   * A screenshot of the page at 1280 and 390 px, named `${prefix}-${name}`, neither scrolling
   * sideways, and no critical or serious accessibility violation.
   */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowserRun(
  dialect: 'sqlite' | 'postgres',
  prefix: string,
  env: Record<string, string> = {},
): Promise<BrowserRun> {
  const shots = path.join(SHOTS, dialect);
  fs.mkdirSync(shots, { recursive: true });
  const target = await processTarget(dialect, prefix);
  const server = await startServerProcess({
    ...target.env,
    PBS_ADMIN_TOKEN: ADMIN_TOKEN,
    PBS_TASKS_POLL_MS: '50',
    PBS_WEBHOOK_POLL_MS: '50',
    ...env,
  });
  const credentials = JSON.parse(fs.readFileSync(/also saved in (\S+)\)/.exec(server.output())![1], 'utf8')) as Record<string, string>;
  const browser = await launchChromium();
  // A context of its own: pages opened in it share its cookies (a second tab stays signed in).
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(TEST_DEADLINE_MS);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // A Content-Security-Policy violation is reported on the console: the pages must cause none.
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) errors.push(message.text());
  });
  const restaurants = await call(server.url, 'GET', '/v3/partner/restaurants?limit=1', { token: credentials.api_key });
  return {
    server,
    browser,
    page,
    credentials,
    restaurant: restaurants.body.restaurants[0].business_id,
    errors,
    async shot(name) {
      try {
        for (const [suffix, viewport] of [
          ['', { width: 1280, height: 900 }],
          ['-390px', { width: 390, height: 844 }],
        ] as const) {
          await page.setViewportSize(viewport);
          const file = path.join(shots, `${prefix}-${name}${suffix}.png`);
          await page.screenshot({ path: file, fullPage: true });
          expect(fs.statSync(file).size).toBeGreaterThan(5_000);
          // Usable at 390 px: nothing makes the page itself scroll sideways (wide tables scroll inside their card).
          const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(sideways, `${name}${suffix}: the page scrolls sideways by ${sideways} px`).toBeLessThanOrEqual(0);
        }
      } finally {
        // The next step sees the desktop width, whether or not this one passed.
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      expect(await accessibilityViolations(page), name).toEqual([]);
    },
    async close() {
      await browser.close();
      await stopStrayServers();
      await target.cleanup();
    },
  };
}
