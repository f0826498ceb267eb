import { chromium, type Browser } from 'playwright-core';

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
