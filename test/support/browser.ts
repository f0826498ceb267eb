import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`); playwright never downloads a browser here. */
export const CHROMIUM = process.env.PBS_CHROMIUM ?? '/usr/bin/chromium';

/** Starts headless chromium with nothing that reaches beyond the machine (no updates, no sync). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** axe-core's script, read once (node_modules/axe-core/axe.min.js). */
let axeSource: string | undefined;

/**
 * The accessibility violations axe-core finds on the page as it is now, of the given impacts
 * (default: critical and serious), each as "rule: what (how many nodes)". The script is evaluated through
 * the browser's debugging protocol, so the page's Content-Security-Policy does not stop it.
 */
export async function accessibilityViolations(page: Page, impacts: string[] = ['critical', 'serious']): Promise<string[]> {
  axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // axe is the global the script above defined.
    type Violation = { id: string; impact: string; help: string; nodes: Array<{ target: unknown }> };
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
      first: JSON.stringify(v.nodes[0]?.target),
    }));
  });
  return violations.filter((v) => impacts.includes(v.impact)).map((v) => `${v.id}: ${v.help} (${v.nodes}, first ${v.first})`);
}

/** Signs in to the operator console at `base` with the bootstrap token, as an operator's browser does. */
export async function signInToConsole(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.click('[data-testid=with-token]');
  await page.fill('input[name=token]', token);
  await page.click('button[type=submit]');
  await page.waitForSelector('section.page h1');
}
