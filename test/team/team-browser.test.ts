import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium } from '../support/browser.js';
import { admin, startPbs, type Harness } from '../support/harness.js';
import { OPERATOR_PASSWORD, totpCode } from '../support/team.js';

/**
 * Issue 44 "console: a Team page": an admin invites a person from the console; the person sets
 * their account up from the link (password and TOTP) and signs in; the console shows them only
 * what their role may do; they make a personal token; the audit trail shows who did what.
 */
describe('the team in the console', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    h = await startPbs('sqlite');
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('invites a person, who sets up, signs in as support, and makes a token; the audit trail says so', async () => {
    const partner: string = (await admin(h.url, 'POST', '/admin/v1/partners', { json: { name: 'Seen by support' } })).body.id;
    await admin(h.url, 'POST', `/admin/v1/partners/${partner}/credentials`, { json: { kind: 'api_key' } });
    await page.goto(`${h.url}/console/`);
    await page.click('[data-testid=with-token]');
    await page.fill('input[name=token]', 'test-admin-token');
    await page.click('button[type=submit]');
    await page.goto(`${h.url}/console/#/team`);
    await page.fill('input[name=email]', 'sam@ops.example.com');
    await page.selectOption('select[name=role]', 'support');
    await page.click('[data-testid=invite]');
    await page.waitForSelector('[data-testid=setup-link]');
    const link = (await page.textContent('[data-testid=setup-link] code')) ?? '';
    expect(link).toContain('/console/#/setup/pbs_setup_');
    expect(await accessibilityViolations(page)).toEqual([]);
    // The bootstrap session signs out; the invited person opens their link.
    await page.click('button.logout');
    await page.goto(link.replace(h.pbs.ctx.config.publicUrl, h.url));
    await page.waitForSelector('[data-testid=totp-secret]');
    const secret = (await page.textContent('[data-testid=totp-secret]')) ?? '';
    await page.fill('input[name=new-password]', OPERATOR_PASSWORD);
    await page.fill('input[name=totp]', totpCode(h, secret));
    await page.click('[data-testid=finish-setup]');
    await page.waitForSelector('[data-testid=sign-in]');
    h.wall.tick(30_000);
    await page.fill('input[name=email]', 'sam@ops.example.com');
    await page.fill('input[name=password]', OPERATOR_PASSWORD);
    await page.fill('input[name=totp]', totpCode(h, secret));
    await page.click('[data-testid=sign-in]');
    await page.waitForSelector('[data-testid=who]');
    expect(await page.textContent('[data-testid=who]')).toContain('sam@ops.example.com · support');
    // Support sees no Imports page, and no invitation form.
    expect(await page.locator('nav a', { hasText: 'Imports' }).count()).toBe(0);
    // On a partner's page: a portal link (support's), but no credential, redirect URI or endpoint changes (a partner manager's).
    await page.goto(`${h.url}/console/#/partners?id=${partner}`);
    await page.waitForSelector('[data-testid=portal-link]');
    for (const hidden of [
      '[data-testid^=roll-]',
      '[data-testid=save-redirect-uris]',
      '[data-testid=register-endpoint]',
      '[data-testid^=limits-]',
    ])
      expect(await page.locator(hidden).count(), hidden).toBe(0);
    await page.goto(`${h.url}/console/#/team`);
    await page.waitForSelector('[data-testid=operators]');
    expect(await page.locator('[data-testid=invite]').count()).toBe(0);
    await page.fill('input[name=token-name]', 'laptop');
    await page.click('[data-testid=new-token]');
    await page.waitForSelector('[data-testid=new-token-secret]');
    await page.click('[data-testid=new-token-secret] button[aria-label="Reveal API token"]');
    const token = (await page.textContent('[data-testid=token-value]')) ?? '';
    expect(token).toMatch(/^pbs_op_/);
    expect((await admin(h.url, 'GET', '/admin/v1/session', { token })).body.operator).toMatchObject({ role: 'support', via: 'token' });
    // The audit trail, searched by the person.
    await page.goto(`${h.url}/console/#/audit`);
    await page.fill('input[name=actor]', 'sam@');
    await page.click('[data-testid=audit-search]');
    await page.waitForFunction(() => document.querySelector('[data-testid=audit]')?.textContent?.includes('/admin/v1/me/tokens'));
    const trail = (await page.textContent('[data-testid=audit]')) ?? '';
    expect(trail).toContain('SIGN-IN password');
    expect(trail).not.toContain(token);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
