import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (the registry's browsers cannot be downloaded here). The
 * flags keep it from reaching for the network at start, which this machine refuses. Playwright gives every
 * launch a new empty profile of its own. The console bench and the browser tests both launch it.
 */
export const CHROMIUM = process.env.WEIR_CHROMIUM ?? '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
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
